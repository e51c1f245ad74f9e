import { launchChromium } from '../../e2e/support/browser.ts';
import { waitForUptime, type BenchAioscope } from './aioscope.ts';
import {
  log,
  rotated,
  sleep,
  using,
  withTimeout,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { openDashboard, routeToSnapshot } from './dashboard.ts';
import { fmt, summarize } from './stats.ts';

/** Render intervals tried; 0 = as built (RENDER_INTERVAL_MS in apps/web/src/live/useLiveTarget.ts). */
const INTERVALS_MS = [0, 500, 1000] as const;
const label = (ms: number): string => (ms === 0 ? 'as built' : `${ms} ms`);

/**
 * Stretches the page's render throttle, a setInterval of 50-250 ms (the page's only timer in that
 * range), to `ms`, and notes the interval the build asked for.
 */
const stretchScript = (ms: number): string => `(() => {
  const native = window.setInterval.bind(window);
  window.__aioscopeRenderIntervals = [];
  window.setInterval = (handler, timeout, ...args) => {
    const throttle = typeof timeout === 'number' && timeout >= 50 && timeout <= 250;
    if (throttle) window.__aioscopeRenderIntervals.push(timeout);
    return native(handler, throttle && ${ms} > 0 ? ${ms} : timeout, ...args);
  };
})();`;

/**
 * What-if, not a target: the browser's main-thread busy share if the dashboard re-rendered every
 * 200 (as built), 500 or 1000 ms. The page's render interval is stretched by an init script, so the
 * source is not touched. Interleaved rounds, a fresh page per window.
 */
export async function runRenderRate(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    await waitForUptime(app, 65);
    const rounds = Math.max(1, Math.round(2 * options.roundsScale));
    const windowSeconds = options.quick ? 8 : 20;
    log(
      `render rate what-if: ${rounds} round(s) × intervals ${INTERVALS_MS.map(label).join('/')} × ${windowSeconds} s`,
    );
    const chromium = await withTimeout(launchChromium(), 60_000, 'Chromium launch');
    cleanups.add('Chromium', () => chromium.close());
    const windows: { round: number; intervalMs: number; busyShare: number; scriptShare: number }[] = [];
    let builtIntervals: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const intervalMs of rotated(INTERVALS_MS, round)) {
        const context = await chromium.browser.newContext({
          viewport: { width: 1600, height: 1000 },
          colorScheme: 'dark',
        });
        await routeToSnapshot(context, app.web);
        try {
          await context.addInitScript({ content: stretchScript(intervalMs) });
          const page = await context.newPage();
          await openDashboard(page, app.url);
          await sleep(8_000);
          const cdp = await context.newCDPSession(page);
          await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
          const read = async (): Promise<Record<string, number>> =>
            Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
          const before = await read();
          await sleep(windowSeconds * 1000);
          const after = await read();
          if (intervalMs === 0) builtIntervals = (await page.evaluate('window.__aioscopeRenderIntervals')) as number[];
          const wall = (after.Timestamp ?? NaN) - (before.Timestamp ?? NaN);
          const busyShare = ((after.TaskDuration ?? NaN) - (before.TaskDuration ?? NaN)) / wall;
          const scriptShare = ((after.ScriptDuration ?? NaN) - (before.ScriptDuration ?? NaN)) / wall;
          windows.push({ round, intervalMs, busyShare, scriptShare });
          log(`render interval ${label(intervalMs)}, round ${round + 1}: main thread busy ${fmt(100 * busyShare)} %`);
        } finally {
          await context.close();
        }
      }
    }
    await chromium.close();
    const perInterval = INTERVALS_MS.map((intervalMs) => {
      const own = windows.filter((w) => w.intervalMs === intervalMs);
      const busy = summarize(own.map((w) => w.busyShare));
      return {
        intervalMs,
        busyShare: busy,
        scriptShare: summarize(own.map((w) => w.scriptShare)),
        /** Main-thread ms per second, divided by renders per second: an upper bound of one render's cost. */
        msPerRender: (busy.median * 1000) / (1000 / (intervalMs === 0 ? (builtIntervals[0] ?? NaN) : intervalMs)),
      };
    });
    writeResult('render-rate', {
      measurement:
        'what-if: browser main-thread busy share by render interval (setInterval stretched by an init script)',
      rateHz: app.rateHz,
      rounds,
      windowSeconds,
      builtRenderIntervalsMs: builtIntervals,
      perInterval,
      windows,
    });
    return [
      {
        measurement: '5c. render interval what-if',
        condition: `dashboard at ${app.rateHz} Hz, ${rounds} interleaved round(s), ${windowSeconds} s each`,
        result: perInterval
          .map(
            (entry) =>
              `${entry.intervalMs === 0 ? `as built (${builtIntervals[0] ?? '?'} ms)` : `every ${entry.intervalMs} ms`}: busy ${fmt(100 * entry.busyShare.median)} % (${fmt(100 * entry.busyShare.min)}–${fmt(100 * entry.busyShare.max)}), ≈${fmt(entry.msPerRender, 0)} ms/render`,
          )
          .join('; '),
        target: '– (what-if)',
        verdict: 'n/a',
      },
    ];
  }, parent);
}
