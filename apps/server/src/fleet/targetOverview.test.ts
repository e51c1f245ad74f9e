import { describe, expect, it } from 'vitest';
import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import { TargetOverview } from './targetOverview.ts';

/** The least frame the overview reads: time, round trip, no reads, no workers. */
const frame = (t: number, sampleMs: number): LiveFrame =>
  ({ t, sampleMs, skippedTicks: 0, inflight: null, newReads: null, ioWorkers: [], waits: {} }) as unknown as LiveFrame;

const delta = (t: number, reads: number, bytes: number): IoStatDelta => ({
  t,
  intervalSeconds: 1,
  reset: false,
  reads,
  readBytes: bytes,
  readTimeMs: 0,
  bytesPerRead: reads > 0 ? bytes / reads : null,
  byBackendType: {},
  byContext: { bulkread: { reads, readBytes: bytes } },
});

describe('TargetOverview', () => {
  it('measures achieved rate and round-trip cost over the last 10 s of wall time', () => {
    let now = 0;
    const overview = new TargetOverview(() => now);
    // 20 s at 20 Hz, 0.5 ms round trips: 10 ms of round trips per second, 1 % of a core.
    for (let i = 0; i < 400; i++) {
      now = i * 50;
      overview.addFrame(frame(1_000_000 + now, 0.5));
    }
    now = 20_000;
    const sampling = overview.sampling();
    expect(sampling.achievedHz).toBeCloseTo(20, 0); // 199 frames fall in (10 s, 20 s]
    expect(sampling.costShare).toBeCloseTo(0.01, 3);
    // Completed seconds only, one per second, on the server's clock.
    const points = overview.points();
    expect(points.length).toBeGreaterThanOrEqual(17);
    expect(points.every((p) => p.frames === 20)).toBe(true);
  });

  it('sums pg_stat_io bulk reads, and adds a late delta to its second instead of a second point', () => {
    let now = 0;
    const overview = new TargetOverview(() => now);
    for (let i = 0; i < 100; i++) {
      now = i * 50;
      overview.addFrame(frame(1_000_000 + now, 0.2));
      if (i % 20 === 19) overview.addIoDelta(delta(1_000_000 + now, 100, 100 * 8192));
    }
    expect(overview.bulkReads()).toMatchObject({ reads: 500, bytes: 500 * 8192 });
    const before = overview.points().length;
    const first = overview.points()[0];
    overview.addIoDelta(delta(first?.t ?? 0, 7, 7 * 8192));
    now += 3_000;
    overview.addFrame(frame(1_000_000 + now, 0.2));
    expect(overview.points().filter((p) => p.t === first?.t)).toHaveLength(1);
    expect(overview.points()[0]?.statReads).toBe(107);
    expect(overview.points().length).toBeGreaterThanOrEqual(before);
  });
});
