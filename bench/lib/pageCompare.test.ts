import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../apps/server/test/support/junk.ts';
import { comparePages, pageWindowsOf, poolRuns, type PageBuild, type PageWindow } from './pageCompare.ts';
import { quantile } from './stats.ts';

/** 600 frames (30 s at 20 Hz): mostly 30–60 ms, one in ten a late paint of 60–160 ms. */
function latencies(random: () => number, offsetMs = 0): number[] {
  return Array.from({ length: 600 }, () => offsetMs + (random() < 0.1 ? 60 + 100 * random() : 30 + 30 * random()));
}

function window(build: PageBuild, round: number, paintLatenciesMs: number[], busyShare = 0.25): PageWindow {
  return { build, round, paintLatenciesMs, busySeconds: 30 * busyShare, wallSeconds: 30, longTasks: 3 };
}

describe('comparePages', () => {
  it('finds no difference between two builds drawn alike, even when the machine slows down between rounds', () => {
    const random = mulberry32(7);
    // Every round the machine is slower or faster by up to 40 ms for both builds alike.
    const windows = Array.from({ length: 8 }, (_, round) => {
      const machine = 40 * random();
      return [window('before', round, latencies(random, machine)), window('after', round, latencies(random, machine))];
    }).flat();
    const result = comparePages(windows);
    expect(result.rounds).toBe(8);
    expect(result.paintP95Difference.low).toBeLessThan(0);
    expect(result.paintP95Difference.high).toBeGreaterThan(0);
    expect(Math.abs(result.paintP95Difference.estimate)).toBeLessThan(10);
    // One window alone strays far more than the pooled difference does.
    const spread = Math.max(...result.before.windowPaintP95Ms) - Math.min(...result.before.windowPaintP95Ms);
    expect(spread).toBeGreaterThan(20);
  });

  it('measures a page that paints every frame 15 ms later as 15 ms later, in every resample', () => {
    const random = mulberry32(3);
    const windows = Array.from({ length: 6 }, (_, round) => {
      const before = latencies(random, 20 * random());
      return [
        window('before', round, before),
        window(
          'after',
          round,
          before.map((ms) => ms + 15),
        ),
      ];
    }).flat();
    const { paintP95Difference } = comparePages(windows);
    expect(paintP95Difference.estimate).toBeCloseTo(15, 9);
    expect(paintP95Difference.low).toBeCloseTo(15, 9);
    expect(paintP95Difference.high).toBeCloseTo(15, 9);
  });

  it('pools p95 over all frames of a build, not as a mean of the windows', () => {
    const quiet = Array.from({ length: 100 }, (_, index) => 30 + index / 10);
    const stormy = Array.from({ length: 100 }, (_, index) => 100 + index);
    const result = comparePages([
      window('before', 0, quiet),
      window('before', 1, stormy),
      window('after', 0, quiet),
      window('after', 1, quiet),
    ]);
    expect(result.before.paintP95Ms).toBeCloseTo(quantile([...quiet, ...stormy], 0.95), 9);
    expect(result.before.windowPaintP95Ms).toEqual([quantile(quiet, 0.95), quantile(stormy, 0.95)]);
    expect(result.before.frames).toBe(200);
    expect(result.paintP95Difference.estimate).toBeCloseTo(
      quantile([...quiet, ...quiet], 0.95) - quantile([...quiet, ...stormy], 0.95),
      9,
    );
  });

  it('weighs busy share by wall time and gives its difference in share points', () => {
    const frames = [40, 50, 60];
    const result = comparePages([
      window('before', 0, frames, 0.2),
      window('after', 0, frames, 0.3),
      { ...window('before', 1, frames), busySeconds: 5, wallSeconds: 10 },
      { ...window('after', 1, frames), busySeconds: 6, wallSeconds: 10 },
    ]);
    expect(result.before.busyShare).toBeCloseTo((6 + 5) / 40, 9);
    expect(result.after.busyShare).toBeCloseTo((9 + 6) / 40, 9);
    expect(result.busyShareDifference.estimate).toBeCloseTo(4 / 40, 9);
    expect(result.after.longTasksPerMinute).toBeCloseTo(6 / (40 / 60), 9);
    expect(result.busyShareChange.estimate).toBeCloseTo(15 / 11 - 1, 9);
  });

  it('gives the relative change of busy share with an interval that holds it when every round agrees', () => {
    const random = mulberry32(5);
    // Each round the machine is busier or quieter for both builds; after is always 40 % less busy.
    const windows = Array.from({ length: 8 }, (_, round) => {
      const before = 0.15 + 0.1 * random();
      return [window('before', round, [40], before), window('after', round, [40], 0.6 * before)];
    }).flat();
    const { busyShareChange } = comparePages(windows);
    expect(busyShareChange.estimate).toBeCloseTo(-0.4, 9);
    expect(busyShareChange.low).toBeCloseTo(-0.4, 9);
    expect(busyShareChange.high).toBeCloseTo(-0.4, 9);
  });

  it('leaves out a round that misses one build, and refuses windows with no pair at all', () => {
    const frames = [40, 50, 60];
    const result = comparePages([window('before', 0, frames), window('after', 0, frames), window('before', 1, frames)]);
    expect(result.rounds).toBe(1);
    expect(result.before.windows).toBe(1);
    expect(() => comparePages([window('before', 0, frames)])).toThrow(/no round holds a window of both builds/);
  });

  it('gives the same interval for the same windows and seed', () => {
    const random = mulberry32(11);
    const windows = Array.from({ length: 4 }, (_, round) => [
      window('before', round, latencies(random)),
      window('after', round, latencies(random)),
    ]).flat();
    expect(comparePages(windows, { seed: 5 })).toEqual(comparePages(windows, { seed: 5 }));
  });
});

describe('pageWindowsOf and poolRuns', () => {
  const frames = [40, 50, 60];

  it('reads the windows of a result file and refuses one of another shape, naming the file', () => {
    const windows = [window('before', 0, frames), window('after', 0, frames)];
    expect(pageWindowsOf(JSON.parse(JSON.stringify({ windows })), 'a.json')).toEqual(windows);
    expect(() => pageWindowsOf({ comparison: {} }, 'b.json')).toThrow(/^b\.json: no windows/);
    expect(() => pageWindowsOf({ windows: [{ ...windows[0], build: 'middle' }] }, 'c.json')).toThrow(
      /^c\.json: window 0 is not a page-ab window/,
    );
    expect(() => pageWindowsOf({ windows: [{ ...windows[0], paintLatenciesMs: [1, null] }] }, 'd.json')).toThrow(
      /window 0/,
    );
  });

  it('keeps the rounds of different runs apart, so no round pairs windows of two runs', () => {
    const runA = [window('before', 0, frames), window('after', 0, frames)];
    const runB = [window('before', 0, frames), window('after', 0, frames)];
    const pooled = poolRuns([runA, runB]);
    expect(pooled.map((entry) => entry.round)).toEqual([0, 0, 1000, 1000]);
    expect(comparePages(pooled).rounds).toBe(2);
  });
});
