import { describe, expect, it } from 'vitest';
import type { IoStatDelta, LiveFrame, RollupPoint } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { bucketValues, lineKey, rollupValues, SERIES, STATE_SERIES, type SeriesLine } from './chartSeries.ts';
import { rollup } from './rollups.ts';

const base = 1_800_000_000_000;
const ALL_LINES: SeriesLine[] = Object.values(SERIES).flatMap((series) =>
  series.stats.map((stat) => ({ series, stat })),
);

/** A recorded server's samples spread 40 ms apart from `base`, its pg_stat_io deltas once a second. */
function recorded(server: ReturnType<typeof recordedServers>[number]): { frames: LiveFrame[]; deltas: IoStatDelta[] } {
  const payloads = buildPayloads(server);
  const frames = payloads.frames.map((frame, i) => ({ ...frame, t: base + i * 40 }));
  const deltas = payloads.ioDeltas.map((delta, i) => ({ ...delta, t: base + i * 1_000 + 500 }));
  return { frames, deltas };
}

const inStep = <T extends { t: number }>(items: readonly T[], t: number, stepMs: number): T[] =>
  items.filter((item) => item.t >= t && item.t < t + stepMs);

describe.each(recordedServers().map((server) => [server.name, server] as const))(
  'a series over %s reads the same from a bucket of frames and from its roll-up',
  (_name, server) => {
    const { frames, deltas } = recorded(server);
    const to = (frames.at(-1)?.t ?? base) + 1;

    it.each([1_000, 5_000])('in steps of %i ms', (stepMs) => {
      const points = rollup(frames, deltas, base, to, stepMs);
      expect(points.length).toBeGreaterThan(0);
      for (const point of points) {
        const bucket = { frames: inStep(frames, point.t, stepMs), deltas: inStep(deltas, point.t, stepMs) };
        const fromBucket = bucketValues(ALL_LINES, bucket);
        const fromRollup = rollupValues(ALL_LINES, point);
        for (const line of ALL_LINES) {
          const key = lineKey(line);
          const expected = fromBucket[key] ?? null;
          if (expected === null) expect(fromRollup[key], key).toBeNull();
          else expect(fromRollup[key], key).toBeCloseTo(expected, 9);
        }
      }
    });
  },
);

describe.each(recordedServers().map((server) => [server.name, server] as const))(
  'the by-state series over %s',
  (_name, server) => {
    const { frames, deltas } = recorded(server);
    const byState = Object.values(STATE_SERIES);

    it('add up to the reads in flight, from frames and from roll-ups alike', () => {
      const bucket = { frames, deltas };
      const total = SERIES.readsInFlight.ofBucket(bucket, 'mean');
      const states = byState.map((series) => series.ofBucket(bucket, 'mean'));
      if (total === null) {
        // pg_aios not readable (a role without the grant, a server before 18): no state is known either.
        expect(states.every((value) => value === null)).toBe(true);
        return;
      }
      expect(states.reduce((sum: number, value) => sum + (value ?? NaN), 0)).toBeCloseTo(total, 9);
      const [point] = rollup(frames, deltas, base, (frames.at(-1)?.t ?? base) + 1, 3_600_000);
      const fromRollup = byState.map((series) => series.ofRollup(point as RollupPoint, 'mean'));
      expect(fromRollup.reduce((sum: number, value) => sum + (value ?? NaN), 0)).toBeCloseTo(total, 9);
    });

    it('read as not recorded, never 0, from a roll-up written before the store kept states', () => {
      const [point] = rollup(frames, deltas, base, (frames.at(-1)?.t ?? base) + 1, 3_600_000);
      const old = { ...(point as RollupPoint), readsByState: null };
      for (const series of byState) expect(series.ofRollup(old, 'mean')).toBeNull();
    });
  },
);

describe('series of recorded samples', () => {
  const worker = recordedServers().find((server) => server.name.includes('worker'));
  const { frames, deltas } = recorded(worker as NonNullable<typeof worker>);

  it('see what the recording holds: reads in flight, io workers and pg_stat_io reads', () => {
    const bucket = { frames, deltas };
    expect(SERIES.readsInFlight.ofBucket(bucket, 'max')).toBeGreaterThan(0);
    expect(SERIES.workerBusy.ofBucket(bucket, 'mean')).not.toBeNull();
    expect(SERIES.ioWorkers.ofBucket(bucket, 'mean')).toBeGreaterThan(0);
    expect(SERIES.workerBacklog.ofBucket(bucket, 'max')).not.toBeNull();
    expect(SERIES.readsSubmitted.ofBucket(bucket, 'mean')).toBeGreaterThan(0);
    expect(SERIES.readsInFlight.ofBucket(bucket, 'max')).toBeGreaterThanOrEqual(
      SERIES.readsInFlight.ofBucket(bucket, 'mean') ?? Infinity,
    );
  });

  it('leave a gap, never a zero, over a bucket without samples', () => {
    const values = bucketValues(ALL_LINES, { frames: [], deltas: [] });
    expect(Object.values(values).every((value) => value === null)).toBe(true);
  });

  it('skip a pg_stat_io reset interval rather than count its zeros', () => {
    const reset = { ...(deltas[0] as IoStatDelta), reset: true, reads: 0, readBytes: 0 };
    const counted = deltas.find((delta) => !delta.reset && delta.reads > 0) as IoStatDelta;
    expect(SERIES.exactBytesPerRead.ofBucket({ frames: [], deltas: [reset, counted] }, 'mean')).toBe(
      counted.readBytes / counted.reads,
    );
  });
});
