import type { Browser } from 'playwright-core';
import { launchChromium } from '../../e2e/support/browser.ts';
import { waitForUptime, type BenchAioscope } from './aioscope.ts';
import {
  log,
  rotated,
  sleep,
  interleavedMinutes,
  interleavedPlan,
  using,
  withTimeout,
  writeResult,
  type InterleavedPlan,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { openDashboard, routeToSnapshot, type WebSnapshot } from './dashboard.ts';
import { paintLatencies } from './latency.ts';
import { comparePages, type Interval, type PageBuild, type PageComparison, type PageWindow } from './pageCompare.ts';
import {
  LONG_TASK_SCRIPT,
  PAGE_NOW,
  PAINT_HOOK_COLLECT,
  PAINT_HOOK_SCRIPT,
  PAINT_HOOK_START,
  longTasksSince,
} from './pageScripts.ts';
import { enablePageMetrics, readTaskClock, taskTimes } from './pageMetrics.ts';
import { fmt, max, min, quantile } from './stats.ts';

/**
 * "No later" and "no busier" with a margin: a difference the resampled interval cannot rule out
 * below these is one nobody sees. 5 ms is under a third of one display frame (16.7 ms at 60 Hz)
 * and a tenth of the 50 ms between samples; one percentage point of the main thread is about what
 * two runs of the same build differ by here.
 */
const PAINT_P95_MARGIN_MS = 5;
export const BUSY_MARGIN = 0.01;
/**
 * Issue 24's gate: the page's main thread at least 30 % less busy than the baseline's, shown when
 * the resampled interval of after ÷ before − 1 lies wholly below −30 %.
 */
const BUSY_CUT = -0.3;
/** A fresh page's first seconds (snapshot, first renders, the histogram's chunk) are not steady state. */
const SETTLE_MS = 5_000;

export function pageAbPlan(options: BenchOptions): InterleavedPlan {
  return interleavedPlan(options, { rounds: 2, windowSeconds: 8 }, { rounds: 8, windowSeconds: 30 });
}

/** An upper bound on the run's minutes, for the watchdog: two windows per round plus loading. */
export function pageAbMinutes(options: BenchOptions): number {
  return interleavedMinutes(pageAbPlan(options), 30);
}

/** One build's page for one window: a fresh context, so nothing of the other build's page is left. */
async function measureWindow(
  browser: Browser,
  url: string,
  snapshot: WebSnapshot,
  build: PageBuild,
  round: number,
  windowSeconds: number,
): Promise<PageWindow> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, colorScheme: 'dark' });
  try {
    await routeToSnapshot(context, snapshot);
    await context.addInitScript({ content: PAINT_HOOK_SCRIPT });
    await context.addInitScript({ content: LONG_TASK_SCRIPT });
    const page = await context.newPage();
    await openDashboard(page, url);
    await sleep(SETTLE_MS);
    const cdp = await context.newCDPSession(page);
    await enablePageMetrics(cdp);
    const pageStart = (await page.evaluate(PAGE_NOW)) as number;
    const start = await readTaskClock(cdp);
    await page.evaluate(PAINT_HOOK_START);
    await sleep(windowSeconds * 1000);
    const collected = (await page.evaluate(PAINT_HOOK_COLLECT)) as {
      frames: [number, number][];
      paints: [number, number, number][];
    };
    const end = await readTaskClock(cdp);
    const longTasks = (await page.evaluate(longTasksSince(pageStart))) as unknown[];
    return {
      build,
      round,
      paintLatenciesMs: paintLatencies(collected.frames, collected.paints),
      ...taskTimes(start, end),
      longTasks: longTasks.length,
    };
  } finally {
    await context.close();
  }
}

/** Resampling fewer rounds than this gives too few distinct draws for an interval (a quick run has 2). */
const MIN_ROUNDS_FOR_VERDICT = 5;

/** "met" when the interval's upper end is within the margin; "MISSED" when the estimate is past it. */
export function nonInferiority(difference: Interval, margin: number, rounds: number): string {
  if (rounds < MIN_ROUNDS_FOR_VERDICT) return `n/a (${rounds} rounds; ${MIN_ROUNDS_FOR_VERDICT} or more judge)`;
  if (difference.high <= margin) return 'met';
  return difference.estimate > margin ? 'MISSED' : 'not shown (more rounds)';
}

const signed = (value: number, decimals = 1): string => `${value >= 0 ? '+' : ''}${fmt(value, decimals)}`;

export function pageAbVerdicts(comparison: PageComparison): { paint: string; busy: string; busyCut: string } {
  return {
    paint: nonInferiority(comparison.paintP95Difference, PAINT_P95_MARGIN_MS, comparison.rounds),
    busy: nonInferiority(comparison.busyShareDifference, BUSY_MARGIN, comparison.rounds),
    // The same rule: "at most −30 %" is "no more than the cut", with no margin.
    busyCut: nonInferiority(comparison.busyShareChange, BUSY_CUT, comparison.rounds),
  };
}

/**
 * Where each build's main thread went, pooled over its windows, as shares of wall time: script,
 * style and layout, and the rest of its tasks (paint, compositing commits, garbage collection …).
 */
export function pageAbSplitRow(
  windows: readonly PageWindow[],
  condition: string,
  labels: { measurement: string; before: string; after: string } = {
    measurement: '4b. page before → after: main thread by kind',
    before: 'before',
    after: 'after',
  },
): TableRow {
  const split = (build: PageBuild): string => {
    const mine = windows.filter((window) => window.build === build);
    const sum = (pick: (window: PageWindow) => number): number =>
      mine.reduce((total, window) => total + pick(window), 0);
    const wall = sum((window) => window.wallSeconds);
    const script = sum((window) => window.splitSeconds?.script ?? Number.NaN);
    const style = sum((window) => window.splitSeconds?.style ?? Number.NaN);
    const layout = sum((window) => window.splitSeconds?.layout ?? Number.NaN);
    const rest = sum((window) => window.busySeconds) - script - style - layout;
    const share = (seconds: number): string => `${fmt((100 * seconds) / wall)} %`;
    return `script ${share(script)}, style ${share(style)}, layout ${share(layout)}, rest (paint, compositing, GC …) ${share(rest)}`;
  };
  return {
    measurement: labels.measurement,
    condition,
    result: `${labels.before}: ${split('before')}; ${labels.after}: ${split('after')}`,
    target: '–',
    verdict: 'n/a',
  };
}

/** The table rows of a comparison: pooled figures, the difference with its interval, the verdicts. */
export function pageAbRows(comparison: PageComparison, condition: string): TableRow[] {
  const verdicts = pageAbVerdicts(comparison);
  const { before, after, paintP95Difference: paint, busyShareDifference: busy, busyShareChange: cut } = comparison;
  const range = (values: number[], scale = 1): string => `${fmt(scale * min(values))}–${fmt(scale * max(values))}`;
  return [
    {
      measurement: '4b. page before → after: paint p95',
      condition,
      result:
        `before ${fmt(before.paintP95Ms)} ms, after ${fmt(after.paintP95Ms)} ms (all frames pooled, ` +
        `${before.frames} / ${after.frames}); after − before ${signed(paint.estimate)} ms ` +
        `(95 % interval ${signed(paint.low)} to ${signed(paint.high)}); one window alone: ` +
        `before ${range(before.windowPaintP95Ms)}, after ${range(after.windowPaintP95Ms)} ms`,
      target: `no later: interval ≤ +${PAINT_P95_MARGIN_MS} ms`,
      verdict: verdicts.paint,
    },
    {
      measurement: '4b. page before → after: main thread busy',
      condition,
      result:
        `before ${fmt(100 * before.busyShare)} %, after ${fmt(100 * after.busyShare)} %; after − before ` +
        `${signed(100 * busy.estimate)} points (95 % interval ${signed(100 * busy.low)} to ${signed(100 * busy.high)}); ` +
        `one window alone: before ${range(before.windowBusyShares, 100)}, after ${range(after.windowBusyShares, 100)} %; ` +
        `long tasks/min ${fmt(before.longTasksPerMinute)} → ${fmt(after.longTasksPerMinute)}`,
      target: `no busier: interval ≤ +${100 * BUSY_MARGIN} point`,
      verdict: verdicts.busy,
    },
    {
      measurement: '4b. page before → after: main thread busy, relative',
      condition,
      result:
        `after ÷ before − 1 = ${signed(100 * cut.estimate, 0)} % ` +
        `(95 % interval ${signed(100 * cut.low, 0)} to ${signed(100 * cut.high, 0)} %)`,
      target: `${-100 * BUSY_CUT} % less busy: interval ≤ ${100 * BUSY_CUT} %`,
      verdict: verdicts.busyCut,
    },
  ];
}

/**
 * The page of an earlier build (`--baseline-web`) against this one, in alternating windows of one
 * run: same aioscope, same background scans, same Chromium. Each round measures both builds, the
 * order swapped every round; see comparePages for the pooling and the interval.
 */
export async function runPageAb(
  options: BenchOptions,
  app: BenchAioscope,
  baseline: WebSnapshot,
  parent: Cleanups,
): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { rounds, windowSeconds } = pageAbPlan(options);
    // Both builds get a page whose 60 s window is full from the first paint.
    await waitForUptime(app, 65);
    log(`page-ab: ${rounds} rounds × ${windowSeconds} s per build, before = ${baseline.js}, after = ${app.web.js}`);
    const chromium = await withTimeout(launchChromium(), 60_000, 'Chromium launch');
    cleanups.add('Chromium', () => chromium.close());
    const windows: PageWindow[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const build of rotated<PageBuild>(['before', 'after'], round)) {
        const snapshot = build === 'before' ? baseline : app.web;
        const measured = await measureWindow(chromium.browser, app.url, snapshot, build, round, windowSeconds);
        windows.push(measured);
        log(
          `page-ab: round ${round + 1}/${rounds} ${build}: paint p95 ${fmt(quantile(measured.paintLatenciesMs, 0.95))} ms, ` +
            `busy ${fmt((100 * measured.busySeconds) / measured.wallSeconds)} %, ${measured.longTasks} long tasks`,
        );
      }
    }
    await chromium.close();

    const comparison = comparePages(windows);
    const { paint: paintVerdict, busy: busyVerdict, busyCut: busyCutVerdict } = pageAbVerdicts(comparison);
    writeResult('page-ab', {
      measurement: 'the page of two builds in alternating windows of one run: paint latency and main-thread busy',
      rateHz: app.rateHz,
      windowSeconds,
      settleMs: SETTLE_MS,
      builds: { before: baseline.js, after: app.web.js },
      method:
        'rounds of one window per build, order swapped every round; paint latency as in the latency measurement; ' +
        'busy = CDP Performance TaskDuration delta / Timestamp delta over the window; difference = after − before of ' +
        'the pooled figures, 95 % interval from resampling whole rounds (seeded)',
      margins: { paintP95Ms: PAINT_P95_MARGIN_MS, busyShare: BUSY_MARGIN, busyShareChange: BUSY_CUT },
      comparison,
      verdict: { paint: paintVerdict, busy: busyVerdict, busyCut: busyCutVerdict },
      // Every window's frames, so runs can be pooled later (bench/pageAbCombine.ts).
      windows: windows.map((window) => ({
        ...window,
        paintLatenciesMs: window.paintLatenciesMs.map((ms) => Math.round(ms * 10) / 10),
      })),
    });
    const condition = `${comparison.rounds} rounds × ${windowSeconds} s per build, alternating, ${app.rateHz} Hz, headless Chromium, scans running`;
    return [...pageAbRows(comparison, condition), pageAbSplitRow(windows, condition)];
  }, parent);
}
