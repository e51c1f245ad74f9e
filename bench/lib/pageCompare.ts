import { mulberry32 } from '../../apps/server/test/support/junk.ts';
import { quantile, sorted } from './stats.ts';

/**
 * Before/after comparison of two builds of the page, measured in alternating windows of one run
 * (same aioscope, same load, same Chromium). One window's paint p95 moves by tens of milliseconds
 * from run to run on a shared two-core machine, more than the differences a change to the page
 * makes; pooling many interleaved windows and resampling whole rounds gives the difference with an
 * interval instead of two numbers that cannot be told apart.
 */

export type PageBuild = 'before' | 'after';

/** One measured window of one build. */
export interface PageWindow {
  build: PageBuild;
  /** Rounds pair the windows: each holds one window of each build, in alternating order. */
  round: number;
  /** Per frame: the first paint that showed it − frame.t (see PAINT_HOOK_SCRIPT). */
  paintLatenciesMs: number[];
  /** Main-thread task time and wall time of the window (CDP Performance TaskDuration, Timestamp). */
  busySeconds: number;
  wallSeconds: number;
  longTasks: number;
  /** Of busySeconds: script, style recalculation and layout (CDP ScriptDuration, RecalcStyleDuration, LayoutDuration). */
  splitSeconds?: { script: number; style: number; layout: number };
}

/** An estimate with its 95 % bootstrap interval. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

export interface BuildFigures {
  windows: number;
  frames: number;
  paintP50Ms: number;
  /** Over all its windows' frames pooled. */
  paintP95Ms: number;
  /** Each window's own p95, in round order: shows how far one window strays. */
  windowPaintP95Ms: number[];
  busyShare: number;
  windowBusyShares: number[];
  longTasksPerMinute: number;
}

export interface PageComparison {
  /** Rounds that hold a window of each build (others are left out). */
  rounds: number;
  resamples: number;
  before: BuildFigures;
  after: BuildFigures;
  /** after − before, ms. */
  paintP95Difference: Interval;
  /** after − before, as a share of the main thread (0.01 = one percentage point). */
  busyShareDifference: Interval;
  /** after ÷ before − 1 of the busy shares (−0.3 = 30 % less busy), resampled like the difference. */
  busyShareChange: Interval;
}

export interface CompareOptions {
  resamples?: number;
  /** The resampling is seeded: the same windows give the same interval. */
  seed?: number;
}

/** The k-th smallest of `values[0..n)` (0-based), reordering them in place (Hoare's quickselect). */
function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[(left + right) >> 1] as number;
    let i = left;
    let j = right;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const swap = values[i] as number;
        values[i] = values[j] as number;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return values[k] as number;
}

/**
 * The p95 of all frames of `windows` together, interpolated as `quantile` does. Selects instead of
 * sorting: the resampling asks for it thousands of times over thousands of frames.
 */
function pooledP95(windows: readonly PageWindow[]): number {
  const total = windows.reduce((sum, window) => sum + window.paintLatenciesMs.length, 0);
  if (total === 0) return Number.NaN;
  const values = new Float64Array(total);
  let offset = 0;
  for (const window of windows) {
    values.set(window.paintLatenciesMs, offset);
    offset += window.paintLatenciesMs.length;
  }
  const position = (total - 1) * 0.95;
  const lower = Math.floor(position);
  const low = select(values, lower);
  if (position === lower) return low;
  // After selecting, everything above index `lower` is no smaller: the next value is their minimum.
  let high = Number.POSITIVE_INFINITY;
  for (let index = lower + 1; index < total; index++) high = Math.min(high, values[index] as number);
  return low + (high - low) * (position - lower);
}

function pooledBusy(windows: readonly PageWindow[]): number {
  const wall = windows.reduce((sum, window) => sum + window.wallSeconds, 0);
  return wall > 0 ? windows.reduce((sum, window) => sum + window.busySeconds, 0) / wall : Number.NaN;
}

function figures(windows: readonly PageWindow[]): BuildFigures {
  const latencies = windows.flatMap((window) => window.paintLatenciesMs);
  const wallMinutes = windows.reduce((sum, window) => sum + window.wallSeconds, 0) / 60;
  return {
    windows: windows.length,
    frames: latencies.length,
    paintP50Ms: quantile(latencies, 0.5),
    paintP95Ms: quantile(latencies, 0.95),
    windowPaintP95Ms: windows.map((window) => quantile(window.paintLatenciesMs, 0.95)),
    busyShare: pooledBusy(windows),
    windowBusyShares: windows.map((window) => window.busySeconds / window.wallSeconds),
    longTasksPerMinute:
      wallMinutes > 0 ? windows.reduce((sum, window) => sum + window.longTasks, 0) / wallMinutes : Number.NaN,
  };
}

/** The middle 95 % of the resampled values around the estimate. */
function interval(estimate: number, resampled: readonly number[]): Interval {
  const values = sorted(resampled);
  return { estimate, low: quantile(values, 0.025), high: quantile(values, 0.975) };
}

/**
 * Pooled figures per build and the after − before differences of paint p95 and busy share. The
 * interval resamples whole rounds with replacement (a round's two windows stay together, so slow
 * minutes of the machine weigh on both builds alike, and frames of one window, which are not
 * independent of each other, are never resampled one by one).
 */
export function comparePages(windows: readonly PageWindow[], options: CompareOptions = {}): PageComparison {
  const resamples = options.resamples ?? 2000;
  const random = mulberry32(options.seed ?? 1);
  const byRound = new Map<number, { before?: PageWindow; after?: PageWindow }>();
  for (const window of windows) {
    const round = byRound.get(window.round) ?? {};
    round[window.build] = window;
    byRound.set(window.round, round);
  }
  const pairs = [...byRound.keys()]
    .sort((a, b) => a - b)
    .flatMap((round) => {
      const pair = byRound.get(round);
      return pair?.before !== undefined && pair.after !== undefined ? [{ before: pair.before, after: pair.after }] : [];
    });
  if (pairs.length === 0) throw new Error('no round holds a window of both builds');
  const before = pairs.map((pair) => pair.before);
  const after = pairs.map((pair) => pair.after);

  const p95Differences: number[] = [];
  const busyDifferences: number[] = [];
  const busyChanges: number[] = [];
  for (let resample = 0; resample < resamples; resample++) {
    const drawn = pairs.map(() => pairs[Math.floor(random() * pairs.length)] as (typeof pairs)[number]);
    const drawnBefore = drawn.map((pair) => pair.before);
    const drawnAfter = drawn.map((pair) => pair.after);
    p95Differences.push(pooledP95(drawnAfter) - pooledP95(drawnBefore));
    busyDifferences.push(pooledBusy(drawnAfter) - pooledBusy(drawnBefore));
    busyChanges.push(pooledBusy(drawnAfter) / pooledBusy(drawnBefore) - 1);
  }
  return {
    rounds: pairs.length,
    resamples,
    before: figures(before),
    after: figures(after),
    paintP95Difference: interval(pooledP95(after) - pooledP95(before), p95Differences),
    busyShareDifference: interval(pooledBusy(after) - pooledBusy(before), busyDifferences),
    busyShareChange: interval(pooledBusy(after) / pooledBusy(before) - 1, busyChanges),
  };
}

/** The windows a page-ab result file keeps, checked: a file of another shape gets its reason. */
export function pageWindowsOf(data: unknown, file: string): PageWindow[] {
  const windows = (data as { windows?: unknown } | null)?.windows;
  if (!Array.isArray(windows) || windows.length === 0) throw new Error(`${file}: no windows (not a page-ab result?)`);
  return windows.map((entry: unknown, index) => {
    const window = entry as Partial<Record<keyof PageWindow, unknown>>;
    const numbers = ['round', 'busySeconds', 'wallSeconds', 'longTasks'] as const;
    const ok =
      (window.build === 'before' || window.build === 'after') &&
      numbers.every((name) => typeof window[name] === 'number' && Number.isFinite(window[name])) &&
      Array.isArray(window.paintLatenciesMs) &&
      window.paintLatenciesMs.every((ms: unknown) => typeof ms === 'number' && Number.isFinite(ms));
    if (!ok) throw new Error(`${file}: window ${index} is not a page-ab window`);
    return window as PageWindow;
  });
}

/** Windows of several runs as one set: each run's rounds stay apart (run r, round k → r·1000 + k). */
export function poolRuns(runs: readonly (readonly PageWindow[])[]): PageWindow[] {
  return runs.flatMap((windows, run) => windows.map((window) => ({ ...window, round: run * 1000 + window.round })));
}
