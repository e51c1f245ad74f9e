import { openBenchPage } from './dashboard.ts';
import { waitForUptime, type BenchAioscope } from './aioscope.ts';
import { log, sleep, using, verdict, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { LONG_TASK_SCRIPT, PAGE_NOW, longTasksSince } from './pageScripts.ts';
import { enablePageMetrics, readPageMetrics, type PageMetrics } from './pageMetrics.ts';
import { fmt, summarize } from './stats.ts';

const TARGET_BUSY_SHARE = 0.2;
const TARGET_HEAP_DRIFT = 0.1;

interface Sample {
  /** Seconds since the measurement began (CDP Timestamp). */
  at: number;
  /** Main-thread busy share in the interval ending here (TaskDuration delta / wall delta). */
  busyShare: number;
  scriptShare: number;
  layoutShare: number;
  styleShare: number;
  /** JS heap used after a forced garbage collection, bytes. */
  heapAfterGc: number;
  domNodes: number;
  listeners: number;
}

function slopePerMinute(points: { at: number; value: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const meanX = points.reduce((sum, p) => sum + p.at, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.value, 0) / n;
  const sxy = points.reduce((sum, p) => sum + (p.at - meanX) * (p.value - meanY), 0);
  const sxx = points.reduce((sum, p) => sum + (p.at - meanX) ** 2, 0);
  return (sxy / sxx) * 60;
}

/**
 * Browser cost: the dashboard in headless Chromium at the default rate for N minutes. Busy share
 * from CDP Performance.getMetrics TaskDuration deltas; long tasks from a PerformanceObserver; JS
 * heap after a forced GC (HeapProfiler.collectGarbage) at every sample. The GC's own task time is
 * excluded: each interval starts from metrics read after the GC.
 */
export async function runBrowserCost(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const minutes = options.browserMinutes;
    const sampleSeconds = minutes <= 1 ? 5 : 10;
    // The snapshot must fill the page's 60 s window from the start, or the heap grows for a minute by design.
    await waitForUptime(app, 65);
    log(`browser cost: dashboard in Chromium for ${minutes} min at ${app.rateHz} Hz ...`);
    const { chromium, context, page } = await openBenchPage(app.url, app.web, [LONG_TASK_SCRIPT], cleanups);
    await sleep(options.quick ? 5_000 : 15_000); // load, snapshot and first renders are not steady state
    const cdp = await context.newCDPSession(page);
    await enablePageMetrics(cdp);
    const metrics = (): Promise<PageMetrics> => readPageMetrics(cdp);
    const gc = async (): Promise<PageMetrics> => {
      await cdp.send('HeapProfiler.collectGarbage');
      return metrics();
    };
    const value = (m: PageMetrics, name: string): number => m[name] ?? NaN;

    let previous = await gc();
    const begin = value(previous, 'Timestamp');
    const pageStart = (await page.evaluate(PAGE_NOW)) as number;
    const samples: Sample[] = [
      {
        at: 0,
        busyShare: NaN,
        scriptShare: NaN,
        layoutShare: NaN,
        styleShare: NaN,
        heapAfterGc: value(previous, 'JSHeapUsedSize'),
        domNodes: value(previous, 'Nodes'),
        listeners: value(previous, 'JSEventListeners'),
      },
    ];
    let busySeconds = 0;
    let wallSeconds = 0;
    const deadline = performance.now() + minutes * 60_000;
    while (performance.now() < deadline) {
      await sleep(Math.min(sampleSeconds * 1000, Math.max(0, deadline - performance.now())));
      const now = await metrics();
      const wall = value(now, 'Timestamp') - value(previous, 'Timestamp');
      const share = (name: string): number => (value(now, name) - value(previous, name)) / wall;
      busySeconds += value(now, 'TaskDuration') - value(previous, 'TaskDuration');
      wallSeconds += wall;
      const after = await gc();
      samples.push({
        at: value(now, 'Timestamp') - begin,
        busyShare: share('TaskDuration'),
        scriptShare: share('ScriptDuration'),
        layoutShare: share('LayoutDuration'),
        styleShare: share('RecalcStyleDuration'),
        heapAfterGc: value(after, 'JSHeapUsedSize'),
        domNodes: value(after, 'Nodes'),
        listeners: value(after, 'JSEventListeners'),
      });
      previous = after;
    }
    const longTasks = (await page.evaluate(longTasksSince(pageStart))) as [number, number][];
    await chromium.close();

    const busyShare = busySeconds / wallSeconds;
    const first = samples[0] as Sample;
    const last = samples[samples.length - 1] as Sample;
    // Heap baseline: the first sample at or after a quarter of the run (the first samples still
    // include one-off allocations of the first renders); drift = last vs baseline, slope after it.
    const baseline = samples.find((sample) => sample.at >= (minutes * 60) / 4) ?? first;
    const heapDrift = (last.heapAfterGc - baseline.heapAfterGc) / baseline.heapAfterGc;
    const heapSlope = slopePerMinute(
      samples
        .filter((sample) => sample.at >= baseline.at)
        .map((sample) => ({ at: sample.at, value: sample.heapAfterGc })),
    );
    const longTasksPerMinute = longTasks.length / (wallSeconds / 60);
    const busyMet = busyShare <= TARGET_BUSY_SHARE;
    const heapMet = Math.abs(heapDrift) <= TARGET_HEAP_DRIFT;
    const intervals = samples.slice(1);
    writeResult('browser', {
      measurement: 'browser cost: dashboard in headless Chromium (software rendering, --disable-gpu)',
      rateHz: app.rateHz,
      minutes,
      sampleSeconds,
      busyShare,
      busyShareByInterval: summarize(intervals.map((s) => s.busyShare)),
      scriptShare: summarize(intervals.map((s) => s.scriptShare)),
      layoutShare: summarize(intervals.map((s) => s.layoutShare)),
      styleShare: summarize(intervals.map((s) => s.styleShare)),
      longTasks: {
        count: longTasks.length,
        perMinute: longTasksPerMinute,
        durationsMs: summarize(longTasks.map((t) => t[1])),
      },
      heap: {
        firstBytes: first.heapAfterGc,
        lastBytes: last.heapAfterGc,
        drift: heapDrift,
        slopeBytesPerMinute: heapSlope,
      },
      target: { busyShareMax: TARGET_BUSY_SHARE, heapDriftMax: TARGET_HEAP_DRIFT },
      met: { busy: busyMet, heap: heapMet },
      samples,
    });
    const mb = (bytes: number): string => fmt(bytes / 1024 ** 2, 1);
    return [
      {
        measurement: '5. browser cost',
        condition: `dashboard at ${app.rateHz} Hz for ${minutes} min, headless Chromium, scans running`,
        result:
          `main thread busy ${fmt(100 * busyShare)} % (intervals ${fmt(100 * summarize(intervals.map((s) => s.busyShare)).min)}–` +
          `${fmt(100 * summarize(intervals.map((s) => s.busyShare)).max)} %; script ${fmt(100 * summarize(intervals.map((s) => s.scriptShare)).median)} %); ` +
          `${fmt(longTasksPerMinute)} long tasks/min; JS heap after GC ${mb(first.heapAfterGc)} MB at start, ` +
          `${mb(baseline.heapAfterGc)} → ${mb(last.heapAfterGc)} MB from ${fmt(baseline.at, 0)} s to the end ` +
          `(${heapDrift >= 0 ? '+' : ''}${fmt(100 * heapDrift)} %, slope ${fmt(heapSlope / 1024, 0)} kB/min)`,
        target: `≤ 20 % busy, heap flat (±10 %)`,
        verdict: verdict(busyMet && heapMet),
      },
    ];
  }, parent);
}
