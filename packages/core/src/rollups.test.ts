import { describe, expect, it } from 'vitest';
import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import type { FastTickQueryRow } from './fastTick.ts';
import {
  addFrame,
  emptyAccumulator,
  mergeAccumulators,
  rollup,
  rollupStepFor,
  toRollupPoint,
  trailingSteps,
  type RollupAccumulator,
} from './rollups.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';

// Samples of PostgreSQL 18 (io_method=worker) during a cold scan, spread 150 ms apart over 18 s.
const fixture = loadFixture<{ duringScan: FastTickQueryRow[] }>('pg18-fast-tick.json');
const base = 1_800_000_000_000;
const frames: LiveFrame[] = framesOfRows([...fixture.duringScan, ...fixture.duringScan, ...fixture.duringScan]).map(
  (frame, i) => ({ ...frame, t: base + i * 150 }),
);

describe('roll-ups', () => {
  it('keeps max, mean and sums of the frames of each step', () => {
    const [first] = rollup(frames, [], base, base + 1_000, 1_000);
    const inStep = frames.filter((frame) => frame.t < base + 1_000);
    const counts = inStep.map((frame) => frame.inflight?.total.count ?? 0);
    expect(first?.frames).toBe(inStep.length);
    expect(first?.readsInFlight.max).toBe(Math.max(...counts));
    expect(first?.readsInFlight.mean).toBeCloseTo(counts.reduce((a, b) => a + b, 0) / counts.length, 9);
    expect(first?.newReads).toBe(inStep.reduce((sum, frame) => sum + (frame.newReads?.count ?? 0), 0));
  });

  it('merges 1 s steps into exactly what a wider step computes from the frames', () => {
    const to = (frames.at(-1)?.t ?? base) + 1;
    const merged = new Map<number, RollupAccumulator>();
    for (const frame of frames) {
      const second = Math.floor(frame.t / 1_000) * 1_000;
      const acc = merged.get(second) ?? emptyAccumulator(second);
      merged.set(second, addFrame(acc, frame));
    }
    const wide = emptyAccumulator(base);
    for (const acc of merged.values()) mergeAccumulators(wide, acc);
    // base is a multiple of 20 s, and the frames span 18 s: one 20 s step holds them all.
    const direct = rollup(frames, [], base, to, 20_000)[0];
    expect(toRollupPoint(wide)).toEqual(direct);
  });

  it('merges 1 s steps into steps that end with the newest second, only the oldest partial', () => {
    const seconds = new Map<number, RollupAccumulator>();
    for (const frame of frames) {
      const second = Math.floor(frame.t / 1_000) * 1_000;
      seconds.set(second, addFrame(seconds.get(second) ?? emptyAccumulator(second), frame));
    }
    // A missing second (a gap) is simply not in its step.
    const kept = [...seconds.values()].filter((acc) => acc.t !== base + 2_000);
    const before = JSON.stringify(kept);
    const steps = trailingSteps(kept, 5_000);
    expect(JSON.stringify(kept)).toBe(before);
    const newest = kept.at(-1)?.t ?? 0;
    // Frames over 18 s: seconds 0–17, so steps start at 13, 8, 3 and -2 s.
    expect(steps.map((step) => step.t)).toEqual([newest - 19_000, newest - 14_000, newest - 9_000, newest - 4_000]);
    for (const step of steps) {
      const direct = frames
        .filter((frame) => frame.t >= step.t && frame.t < step.t + 5_000)
        .filter((frame) => Math.floor(frame.t / 1_000) * 1_000 !== base + 2_000)
        .reduce(addFrame, emptyAccumulator(step.t));
      expect(toRollupPoint(step)).toEqual(toRollupPoint(direct));
    }
    expect(steps.reduce((sum, step) => sum + step.frames, 0)).toBe(kept.reduce((sum, acc) => sum + acc.frames, 0));
    expect(trailingSteps([], 5_000)).toEqual([]);
  });

  it('keeps reads by state as means over the frames that sampled pg_aios', () => {
    const inStep = frames.filter((frame) => frame.t < base + 1_000);
    const [first] = rollup(
      [...inStep, { ...(inStep[0] as LiveFrame), t: base + 999, inflight: null }],
      [],
      base,
      base + 1_000,
      1_000,
    );
    const submitted = inStep.map((frame) => frame.inflight?.byState.SUBMITTED?.count ?? 0);
    expect(submitted.some((count) => count > 0)).toBe(true);
    expect(first?.readsByState?.SUBMITTED).toBeCloseTo(submitted.reduce((a, b) => a + b, 0) / inStep.length, 9);
    // A state no read was in is absent (0), and a step without pg_aios did not record any state.
    expect(first?.readsByState).not.toHaveProperty('HANDED_OUT');
    const [blind] = rollup(
      inStep.map((frame) => ({ ...frame, inflight: null })),
      [],
      base,
      base + 1_000,
      1_000,
    );
    expect(blind?.readsByState).toBeNull();
  });

  it('adds pg_stat_io deltas but not an interval with a reset', () => {
    const delta = (t: number, reads: number, reset: boolean): IoStatDelta => ({
      t,
      intervalSeconds: 1,
      reset,
      reads,
      readBytes: reads * 131_072,
      readTimeMs: 0,
      bytesPerRead: null,
      byBackendType: {},
      byContext: {},
    });
    const [point] = rollup(
      frames,
      [delta(base + 100, 10, false), delta(base + 200, 999, true)],
      base,
      base + 1_000,
      1_000,
    );
    expect(point?.statReads).toBe(10);
    expect(point?.statReadBytes).toBe(10 * 131_072);
  });

  it('widens the step so a long range stays under the point limit, in whole seconds', () => {
    expect(rollupStepFor(0, 3_600_000, undefined, 4_000)).toBe(1_000);
    expect(rollupStepFor(0, 24 * 3_600_000, undefined, 4_000)).toBe(22_000);
    expect(rollupStepFor(0, 60_000, 1_500, 4_000)).toBe(2_000);
  });
});
