import path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { waitForUptime, type BenchAioscope } from './aioscope.ts';
import {
  RESULTS_DIR,
  log,
  rotated,
  sleep,
  interleavedMinutes,
  interleavedPlan,
  using,
  writeResult,
  type InterleavedPlan,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { openBenchPage } from './dashboard.ts';
import { BUSY_MARGIN, nonInferiority, pageAbSplitRow } from './pageAb.ts';
import { comparePages, type PageBuild, type PageWindow } from './pageCompare.ts';
import { enablePageMetrics, readTaskClock, taskTimes } from './pageMetrics.ts';
import { LONG_TASK_SCRIPT, PAGE_NOW, longTasksSince } from './pageScripts.ts';
import { fmt, max, min } from './stats.ts';

/**
 * Issue 24's gate "the race replay at 1× no busier than the live dashboard": one page, one race,
 * windows alternating between the two ways a user looks at it.
 *
 * - dashboard: scrolled to the top, the live charts at 20 Hz in view (as page-ab measures it);
 * - race 1×: scrolled to the race, which is replayed at 1× over and over (a replay lasts about a
 *   second; the next starts within a few ms of its end), the live page still running around it.
 *
 * The same page throughout (its race loaded once), so the windows differ only in what is looked
 * at and whether the replay runs.
 */

/** Comparison labels: the dashboard is the reference ('before'), the race what is judged ('after'). */
const CONDITIONS: Record<PageBuild, string> = { before: 'dashboard', after: 'race 1×' };
/** After a scroll, panels held off screen catch up and the replay starts: not the steady state. */
const SETTLE_MS = 3_000;
/** Building the race's 256 MB table on a fresh cluster, then 6 cold runs at 100 Hz, under the background scans. */
const RACE_CAPTURE_TIMEOUT_MS = 420_000;

export function raceReplayPlan(options: BenchOptions): InterleavedPlan {
  return interleavedPlan(options, { rounds: 2, windowSeconds: 6 }, { rounds: 8, windowSeconds: 20 });
}

/** An upper bound on the run's minutes, for the watchdog: the capture, then two windows per round. */
export function raceReplayMinutes(options: BenchOptions): number {
  return interleavedMinutes(raceReplayPlan(options), 10, RACE_CAPTURE_TIMEOUT_MS / 60_000);
}

/**
 * Keeps the race replaying at 1×: every 20 ms, a finished replay (its first button then reads
 * "play again") is started again. Counts the replays; stop() ends the loop and returns the count.
 */
const REPLAY_LOOP_SCRIPT = `(() => {
  const view = document.querySelector('[data-testid=race-replay]');
  const buttons = () => [...view.querySelectorAll('.race-controls button')];
  const loop = { replays: 0 };
  const again = () => {
    const toggle = buttons()[0];
    if (toggle !== undefined && toggle.textContent === 'play again') {
      toggle.click();
      loop.replays++;
    }
  };
  buttons().find((button) => button.textContent === 'replay').click();
  loop.replays++;
  loop.timer = setInterval(again, 20);
  window.__raceLoop = loop;
})()`;
const STOP_REPLAY_LOOP = `(() => {
  const loop = window.__raceLoop;
  clearInterval(loop.timer);
  return loop.replays;
})()`;

interface RaceWindow extends PageWindow {
  /** Replays started in the window (race windows only). */
  replays: number;
}

async function measureWindow(
  page: Page,
  cdp: CDPSession,
  build: PageBuild,
  round: number,
  windowSeconds: number,
): Promise<RaceWindow> {
  if (build === 'before') await page.evaluate('window.scrollTo(0, 0)');
  else await page.evaluate(`document.querySelector('[data-testid=race-view]').scrollIntoView({ block: 'start' })`);
  if (build === 'after') await page.evaluate(REPLAY_LOOP_SCRIPT);
  await sleep(SETTLE_MS);
  const pageStart = (await page.evaluate(PAGE_NOW)) as number;
  const replaysBefore = build === 'after' ? ((await page.evaluate('window.__raceLoop.replays')) as number) : 0;
  const start = await readTaskClock(cdp);
  await sleep(windowSeconds * 1000);
  const end = await readTaskClock(cdp);
  const replays = build === 'after' ? ((await page.evaluate(STOP_REPLAY_LOOP)) as number) - replaysBefore : 0;
  const longTasks = (await page.evaluate(longTasksSince(pageStart))) as unknown[];
  return {
    build,
    round,
    paintLatenciesMs: [],
    ...taskTimes(start, end),
    longTasks: longTasks.length,
    replays,
  };
}

/** Starts the read-combining race from the lab panel and waits until its first 1× replay has ended. */
async function captureRace(page: Page): Promise<{ id: string; durationMs: number }> {
  log('race-replay: starting the read-combining race (the first run on a cluster builds its 256 MB table) ...');
  const started = performance.now();
  await page.getByTestId('panel-lab').getByRole('button', { name: 'Show read combining' }).click();
  const replay = page.getByTestId('race-replay');
  await replay.waitFor({ timeout: RACE_CAPTURE_TIMEOUT_MS });
  await page
    .getByTestId('race-outcome')
    .filter({ hasText: /finished first/ })
    .waitFor({ timeout: 60_000 });
  const heading = await page.getByTestId('race-view').getByRole('heading', { level: 3 }).innerText();
  const clock = await page.getByTestId('race-clock').innerText();
  const durationMs = Number(clock.split(' / ')[1]?.split(' ')[0]?.replace(/,/g, ''));
  const id = /^Race ([a-z0-9]+):/.exec(heading)?.[1] ?? 'unknown';
  log(
    `race-replay: race ${id} captured in ${fmt((performance.now() - started) / 1000, 0)} s; a 1× replay lasts ${fmt(durationMs, 0)} ms`,
  );
  return { id, durationMs };
}

export async function runRaceReplay(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { rounds, windowSeconds } = raceReplayPlan(options);
    await waitForUptime(app, 65);
    const { chromium, context, page } = await openBenchPage(app.url, app.web, [LONG_TASK_SCRIPT], cleanups);
    const race = await captureRace(page);
    const cdp = await context.newCDPSession(page);
    await enablePageMetrics(cdp);

    const windows: RaceWindow[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const build of rotated<PageBuild>(['before', 'after'], round)) {
        const measured = await measureWindow(page, cdp, build, round, windowSeconds);
        windows.push(measured);
        log(
          `race-replay: round ${round + 1}/${rounds} ${CONDITIONS[build]}: busy ${fmt((100 * measured.busySeconds) / measured.wallSeconds)} %` +
            (build === 'after' ? `, ${measured.replays} replays` : ''),
        );
        if (round === 0) {
          await page.screenshot({
            path: path.join(RESULTS_DIR, `race-replay-${build === 'before' ? 'dashboard' : 'race'}.png`),
          });
        }
      }
    }
    await chromium.close();

    const comparison = comparePages(windows);
    const busy = comparison.busyShareDifference;
    const verdict = nonInferiority(busy, BUSY_MARGIN, comparison.rounds);
    const raceWindows = windows.filter((window) => window.build === 'after');
    const replaySeconds = raceWindows.reduce((sum, window) => sum + window.replays, 0) * (race.durationMs / 1000);
    const raceWall = raceWindows.reduce((sum, window) => sum + window.wallSeconds, 0);
    const condition =
      `${comparison.rounds} rounds × ${windowSeconds} s each, alternating, ${app.rateHz} Hz, headless Chromium 1600 × 1000, ` +
      `scans running; race ${race.id}, ${fmt(race.durationMs, 0)} ms a replay, replaying ${fmt((100 * Math.min(replaySeconds, raceWall)) / raceWall, 0)} % of its windows`;
    const range = (values: number[]): string => `${fmt(100 * min(values))}–${fmt(100 * max(values))}`;
    const signed = (value: number): string => `${value >= 0 ? '+' : ''}${fmt(100 * value)}`;
    writeResult('race-replay', {
      measurement:
        'main thread busy: the race replayed at 1× in a loop vs the live dashboard, one page, alternating windows',
      rateHz: app.rateHz,
      windowSeconds,
      settleMs: SETTLE_MS,
      race,
      method:
        'one page; per round one window scrolled to the top (dashboard) and one scrolled to the race while it replays at 1× ' +
        'over and over, order swapped every round; busy = CDP Performance TaskDuration delta / Timestamp delta; ' +
        'difference = race − dashboard of the pooled shares, 95 % interval from resampling whole rounds (seeded)',
      margin: BUSY_MARGIN,
      comparison,
      verdict,
      windows,
    });
    return [
      {
        measurement: '4c. race replay at 1× vs the live dashboard: main thread busy',
        condition,
        result:
          `dashboard ${fmt(100 * comparison.before.busyShare)} %, race 1× ${fmt(100 * comparison.after.busyShare)} %; ` +
          `race − dashboard ${signed(busy.estimate)} points (95 % interval ${signed(busy.low)} to ${signed(busy.high)}); ` +
          `one window alone: dashboard ${range(comparison.before.windowBusyShares)}, race ${range(comparison.after.windowBusyShares)} %; ` +
          `long tasks/min ${fmt(comparison.before.longTasksPerMinute)} / ${fmt(comparison.after.longTasksPerMinute)}`,
        target: `no busier: interval ≤ +${100 * BUSY_MARGIN} point`,
        verdict,
      },
      pageAbSplitRow(windows, condition, {
        measurement: '4c. race replay at 1× vs the live dashboard: main thread by kind',
        before: CONDITIONS.before,
        after: CONDITIONS.after,
      }),
    ];
  }, parent);
}
