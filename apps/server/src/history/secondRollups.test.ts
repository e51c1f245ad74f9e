import { describe, expect, it } from 'vitest';
import { mergeAccumulators, rollup, toRollupPoint, type RollupAccumulator } from '@aioscope/core';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { ROLLUP_GRACE_MS, SecondRollups } from './secondRollups.ts';

const [recorded] = recordedServers();
if (recorded === undefined) throw new Error('no recorded server');
const { frames, ioDeltas } = buildPayloads(recorded);

/** The recorded frames spread over several seconds, as a 20 Hz monitor would send them. */
const spread = frames.map((frame, index) => ({ ...frame, t: 1_000_000 + index * 50 }));
const deltas = ioDeltas.map((delta, index) => ({ ...delta, t: 1_000_400 + index * 1_000 }));

describe('SecondRollups', () => {
  it('hands over a second only once it is ROLLUP_GRACE_MS old, and then the rest on shutdown', () => {
    const rollups = new SecondRollups();
    const [first] = spread;
    if (first === undefined) throw new Error('no recorded frame');
    rollups.addFrame(first);
    rollups.addFrame({ ...first, t: 1_001_000 + ROLLUP_GRACE_MS - 1 });
    expect(rollups.takeComplete()).toEqual([]);
    rollups.addFrame({ ...first, t: 1_001_000 + ROLLUP_GRACE_MS });
    expect(rollups.takeComplete().map((acc) => acc.t)).toEqual([1_000_000]);
    expect(rollups.takeAll().map((acc) => acc.t)).toEqual([1_001_000, 1_002_000]);
  });

  it("agrees with core's rollup() of the same samples, a late delta in a second row included", () => {
    const rollups = new SecondRollups();
    const taken: RollupAccumulator[] = [];
    for (const frame of spread) {
      rollups.addFrame(frame);
      taken.push(...rollups.takeComplete());
    }
    for (const delta of deltas) rollups.addIoDelta(delta); // late: their seconds were handed over
    taken.push(...rollups.takeAll());
    const bySecond = new Map<number, RollupAccumulator>();
    for (const acc of taken) {
      const same = bySecond.get(acc.t);
      bySecond.set(acc.t, same === undefined ? acc : mergeAccumulators(same, acc));
    }
    const points = [...bySecond.values()].sort((a, b) => a.t - b.t).map(toRollupPoint);
    expect(points).toEqual(rollup(spread, deltas, 0, Number.MAX_SAFE_INTEGER, 1_000));
    expect(points.length).toBeGreaterThan(1);
  });
});
