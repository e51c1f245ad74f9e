import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { SYNTHETIC_START, syntheticHistory } from '../../apps/server/src/history/recordingFileFixture.ts';
import { writeRecordingFile } from '../../apps/server/src/history/recordingFileWriter.ts';
import { launchChromium } from '../../e2e/support/browser.ts';
import type { BenchAioscope } from './aioscope.ts';
import {
  log,
  rotated,
  sleep,
  using,
  verdict,
  withTimeout,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { openDashboard } from './dashboard.ts';
import { startHistoryApp, type HistoryApp } from './historyApp.ts';
import {
  HAS_ROLLUP_CHART,
  WATCHED,
  WATCH_SCRIPT,
  armWatch,
  resourceTimings,
  switchInPage,
  type ResourceTiming,
  type WatchResult,
} from './historyPageScripts.ts';
import { enablePageMetrics, readPageMetrics, type PageMetrics } from './pageMetrics.ts';
import { fmt, fmtSummary, summarize, type Summary } from './stats.ts';

/** Issue 12's goals. */
const RANGE_GOAL_MS = 1_000;
const RECORDING_GOAL_MS = 2_000;
const RANGES = [
  { label: '1 h', ms: 3_600_000 },
  { label: '24 h', ms: 24 * 3_600_000 },
] as const;
type RangeLabel = (typeof RANGES)[number]['label'];
const RECORDING_MINUTES = 10;
const REPLAY_RANGE_MS = 15 * 60_000;
const REPLAY_SPEED = 4;
const WATCH_TIMEOUT_MS = 30_000;
/** A click whose range is not drawn by then is a broken button, not a slow one. */
const CLICK_TIMEOUT_MS = 10_000;
const VIEWPORT = { width: 1600, height: 1000 };

/** One-minute load average now: the machine is shared, so every figure carries it. */
const load = (): number => os.loadavg()[0] ?? NaN;

interface Timed {
  /** Origin → painted, ms. */
  totalMs: number;
  /** Origin → the request left (page work before it), ms. */
  beforeRequestMs: number;
  /** Request → response complete (server and transfer), ms. */
  requestMs: number;
  /** Response complete → painted (parse, render, draw), ms. */
  afterResponseMs: number;
  load: number;
}

interface RangeRun extends Timed {
  range: RangeLabel;
  /** click: the time bar's button; switch: the same view through the URL in the open page; link: a new page. */
  how: 'click' | 'switch' | 'link';
}

interface RangeMeasurement {
  runs: RangeRun[];
  /** Why the buttons were not timed, when they did not draw. */
  clickProblem: string | null;
}

/**
 * `history-browser`: the dashboard in headless Chromium reading the past through the real REST
 * routes from a DuckDB store seeded with a day (historyApp.ts). (1) A 1 h and a 24 h range: from a
 * click on the time bar's button (and from opening a link to the range) until the roll-up chart's
 * lines are painted. (2) A 10-minute recording file chosen in "Open recording…" until its panels
 * show. (3) The main thread replaying a recorded 15-minute range at 4× against the live view,
 * alternated in one run.
 */
export async function runHistoryBrowser(
  options: BenchOptions,
  app: BenchAioscope,
  parent: Cleanups,
): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const served = await startHistoryApp(app, options.quick ? 15 : 30, cleanups);
    const chromium = await withTimeout(launchChromium(), 60_000, 'Chromium launch');
    cleanups.add('Chromium', () => chromium.close());
    const rounds = Math.max(2, Math.round((options.quick ? 2 : 5) * options.roundsScale));
    const liveUrl = `${served.url}/?target=${served.targetId}`;

    log(`history-browser: ranges, ${rounds} rounds of 1 h and 24 h, by click and by link ...`);
    const ranges = await measureRanges(chromium.browser, served, liveUrl, rounds);
    log(`history-browser: opening a ${RECORDING_MINUTES}-minute recording file, ${rounds} rounds ...`);
    const recording = await measureRecordingOpen(chromium.browser, liveUrl, rounds);
    const replayRounds = Math.max(2, Math.round((options.quick ? 2 : 3) * options.roundsScale));
    const windowSeconds = options.quick ? 8 : 15;
    log(`history-browser: replay at ${REPLAY_SPEED}× vs live, ${replayRounds} rounds × ${windowSeconds} s each ...`);
    const replay = await measureReplay(chromium.browser, served, liveUrl, replayRounds, windowSeconds);
    await chromium.close();

    writeResult('history-browser', { seeded: served.seeded, ranges, recording, replay });
    return [...rangeRows(ranges), recordingRow(recording), replayRow(replay, windowSeconds)];
  }, parent);
}

// ── 1. ranges ────────────────────────────────────────────────────────────────────────────────

async function measureRanges(
  browser: Browser,
  served: HistoryApp,
  liveUrl: string,
  rounds: number,
): Promise<RangeMeasurement> {
  const runs: RangeRun[] = [];
  let clickProblem: string | null = null;
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'dark' });
  try {
    const page = await context.newPage();
    await openDashboard(page, liveUrl);
    await sleep(3_000); // snapshot and first renders done
    for (let round = 0; round < rounds; round++) {
      for (const range of rotated(RANGES, round)) {
        // At most twice: a click that draws nothing is retried through the URL.
        for (let measured = false; !measured;) {
          await page.evaluate(WATCH_SCRIPT);
          if ((await page.evaluate(HAS_ROLLUP_CHART)) === true) throw new Error('a roll-up chart is still on the page');
          const before = load();
          const how: RangeRun['how'] = clickProblem === null ? 'click' : 'switch';
          let from: number;
          if (how === 'click') {
            await page.evaluate(armWatch('rollupInk', 'click', CLICK_TIMEOUT_MS));
            await page.getByRole('button', { name: range.label, exact: true }).click();
            from = Number(new URL(page.url()).searchParams.get('from'));
          } else {
            const to = Date.now();
            from = to - range.ms;
            await page.evaluate(switchInPage(`/?target=${served.targetId}&from=${from}&to=${to}`, WATCH_TIMEOUT_MS));
          }
          const result = (await page.evaluate(WATCHED)) as WatchResult;
          if (how === 'click' && result.timedOut) {
            // The button's range is not drawn at all: say so, and time the same view reached through the URL.
            clickProblem = `the "${range.label}" button's range was not drawn within ${CLICK_TIMEOUT_MS / 1000} s (${await pageState(page)})`;
            log(`  ${clickProblem}; timing the same ranges switched to in the page through the URL instead`);
          } else {
            checkWatch(result, `${how} ${range.label} drawn`);
            const timed = await breakdown(page, result, `/history/rollups?from=${from}&`, before);
            runs.push({ range: range.label, how, ...timed });
            measured = true;
            log(
              `  ${how} ${range.label}: painted after ${fmt(timed.totalMs, 0)} ms (request ${fmt(timed.requestMs, 0)} ms)`,
            );
          }
          await page.getByTestId('back-to-live').click();
          await page.getByRole('heading', { name: 'Reads in flight' }).first().waitFor({ timeout: 20_000 });
          await sleep(2_000);
        }
      }
    }
  } finally {
    await context.close();
  }
  for (let round = 0; round < rounds; round++) {
    for (const range of rotated(RANGES, round + 1)) {
      // A link as someone shared it: a new browser profile each time, so nothing is cached.
      const linkContext = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'dark' });
      try {
        await linkContext.addInitScript({
          content: `${WATCH_SCRIPT};${armWatch('rollupInk', 'navigation', WATCH_TIMEOUT_MS)}`,
        });
        const page = await linkContext.newPage();
        const to = Date.now();
        const from = to - range.ms;
        const before = load();
        await page.goto(`${served.url}/?target=${served.targetId}&from=${from}&to=${to}`, { timeout: 30_000 });
        const result = checkWatch((await page.evaluate(WATCHED)) as WatchResult, `link to ${range.label} drawn`);
        const timed = await breakdown(page, result, `/history/rollups?from=${from}&`, before);
        runs.push({ range: range.label, how: 'link', ...timed });
        log(`  link ${range.label}: painted after ${fmt(timed.totalMs, 0)} ms (request ${fmt(timed.requestMs, 0)} ms)`);
      } finally {
        await linkContext.close();
      }
    }
  }
  return { runs, clickProblem };
}

/** What the page shows instead of the chart: its empty-state and alert texts. */
async function pageState(page: Page): Promise<string> {
  // The first empty state is where the range's panels would be (the lab's comes later on the page).
  const texts = await page.locator('.empty-state, [role="alert"]').allTextContents();
  return texts[0] === undefined ? 'no message on the page' : `the page says: ${texts[0].trim()}`;
}

function checkWatch(result: WatchResult, what: string): WatchResult {
  if (result.timedOut || result.origin === null || result.paintedAt === null) {
    throw new Error(`${what}: not within ${WATCH_TIMEOUT_MS / 1000} s (${JSON.stringify(result)})`);
  }
  return result;
}

/** Splits origin → painted at the request the page made for it (the last one matching `request`). */
async function breakdown(page: Page, result: WatchResult, request: string, loadBefore: number): Promise<Timed> {
  const origin = result.origin ?? NaN;
  const painted = result.paintedAt ?? NaN;
  const entries = (await page.evaluate(resourceTimings(request))) as ResourceTiming[];
  const entry = entries.filter((candidate) => candidate.startTime >= origin).at(-1);
  return {
    totalMs: painted - origin,
    beforeRequestMs: (entry?.startTime ?? NaN) - origin,
    requestMs: (entry?.responseEnd ?? NaN) - (entry?.startTime ?? NaN),
    afterResponseMs: painted - (entry?.responseEnd ?? NaN),
    load: Math.max(loadBefore, load()),
  };
}

function rangeRows({ runs, clickProblem }: RangeMeasurement): TableRow[] {
  const inPage = clickProblem === null ? 'click' : 'switch';
  return ([inPage, 'link'] as const).flatMap((how) =>
    RANGES.map(({ label }) => {
      const picked = runs.filter((run) => run.how === how && run.range === label);
      const total = summarize(picked.map((run) => run.totalMs));
      const part = (get: (run: RangeRun) => number): string => fmt(summarize(picked.map(get)).median, 0);
      const seeded = `${label} of 1 s roll-ups (a seeded day at 20 Hz, recording on)`;
      const condition = {
        click: `${seeded}: click "${label}" on the live page → reads chart painted`,
        switch: `${seeded}: the live page switched to the range through its URL (pushState + popstate) → reads chart painted; ${clickProblem ?? ''}`,
        link: `${seeded}: a link to the range opened in a new browser profile (page load included) → reads chart painted`,
      }[how];
      const goal = how === 'link' ? null : total.median <= RANGE_GOAL_MS;
      return {
        measurement: 'history range in Chromium',
        condition,
        result:
          `${fmtSummary(total, 0)} ms (n=${total.n}); medians: before the request ${part((r) => r.beforeRequestMs)} ms, ` +
          `GET /history/rollups ${part((r) => r.requestMs)} ms, response → painted ${part((r) => r.afterResponseMs)} ms; ` +
          `load average ${loadText(picked)}`,
        target: goal === null ? '–' : `≤ ${RANGE_GOAL_MS / 1000} s`,
        verdict:
          how === 'switch' ? `MISSED: the button draws nothing (through the URL ${verdict(goal)})` : verdict(goal),
      };
    }),
  );
}

// ── 2. recording file ────────────────────────────────────────────────────────────────────────

interface RecordingOpen {
  frames: number;
  bytes: number;
  runs: (Timed & { uploadMs: number; framesMs: number })[];
}

async function measureRecordingOpen(browser: Browser, liveUrl: string, rounds: number): Promise<RecordingOpen> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'aioscope-bench-history-browser-'));
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'dark' });
  try {
    const file = path.join(folder, 'ten-minutes.aioscope.gz');
    const durationMs = RECORDING_MINUTES * 60_000;
    const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + durationMs };
    const counts = await writeRecordingFile(syntheticHistory('embedded', { durationMs, rateHz: 20 }), range, file);
    const bytes = (await stat(file)).size;
    const runs: RecordingOpen['runs'] = [];
    for (let round = 0; round < rounds; round++) {
      const page = await context.newPage();
      try {
        await openDashboard(page, liveUrl);
        await sleep(2_000);
        await page.evaluate(WATCH_SCRIPT);
        const before = load();
        await page.evaluate(armWatch('recordingShown', 'input', WATCH_TIMEOUT_MS));
        await page.getByTestId('open-recording').setInputFiles(file);
        const result = checkWatch((await page.evaluate(WATCHED)) as WatchResult, 'recording shown');
        const timed = await breakdown(page, result, '/history/frames?', before);
        const upload = ((await page.evaluate(resourceTimings('/api/recordings'))) as ResourceTiming[]).at(-1);
        const uploadMs = (upload?.responseEnd ?? NaN) - (upload?.startTime ?? NaN);
        runs.push({ ...timed, uploadMs, framesMs: timed.requestMs });
        if (!page.url().includes('recording')) log(`  warning: the page is at ${page.url()}, not a recording`);
        log(`  recording shown after ${fmt(timed.totalMs, 0)} ms (upload ${fmt(uploadMs, 0)} ms)`);
      } finally {
        await page.close();
      }
    }
    return { frames: counts.frames, bytes, runs };
  } finally {
    await context.close();
    await rm(folder, { recursive: true, force: true });
  }
}

function recordingRow(recording: RecordingOpen): TableRow {
  const total = summarize(recording.runs.map((run) => run.totalMs));
  const median = (get: (run: RecordingOpen['runs'][number]) => number): string =>
    fmt(summarize(recording.runs.map(get)).median, 0);
  return {
    measurement: 'recording file in Chromium',
    condition:
      `${RECORDING_MINUTES} min at 20 Hz (${recording.frames} frames, ${fmt(recording.bytes / 1e6)} MB) chosen in ` +
      '"Open recording…" on the live page → its panels show the peak',
    result:
      `${fmtSummary(total, 0)} ms (n=${total.n}); medians: POST /api/recordings ${median((r) => r.uploadMs)} ms, ` +
      `GET /history/frames ${median((r) => r.framesMs)} ms, response → painted ${median((r) => r.afterResponseMs)} ms; ` +
      `load average ${loadText(recording.runs)}`,
    target: `≤ ${RECORDING_GOAL_MS / 1000} s`,
    verdict: verdict(total.median <= RECORDING_GOAL_MS),
  };
}

// ── 3. replay vs live ────────────────────────────────────────────────────────────────────────

interface ReplayWindow {
  round: number;
  condition: 'live' | 'replay';
  busyShare: number;
  scriptShare: number;
  /** Recorded ms the playhead moved per wall ms (replay only; ≈ the speed when it keeps up). */
  playheadSpeed: number | null;
  load: number;
}

async function measureReplay(
  browser: Browser,
  served: HistoryApp,
  liveUrl: string,
  rounds: number,
  windowSeconds: number,
): Promise<ReplayWindow[]> {
  // A recorded 15 minutes inside the seeded raw samples, replayed from its start.
  const from = Math.ceil(served.seeded.raw.from + 2 * 60_000);
  const to = from + REPLAY_RANGE_MS;
  const replayUrl = `${served.url}/?target=${served.targetId}&from=${from}&to=${to}&at=${from}&speed=${REPLAY_SPEED}`;
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'dark' });
  const windows: ReplayWindow[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const condition of rotated(['live', 'replay'] as const, round)) {
        const page = await context.newPage();
        try {
          await openDashboard(page, condition === 'live' ? liveUrl : replayUrl);
          if (condition === 'replay') {
            await page.getByTestId('replay-play').click();
            await page.getByTestId('time-state').filter({ hasText: 'replaying' }).waitFor({ timeout: 10_000 });
          }
          await sleep(3_000); // first renders after load and play are not steady state
          const window = await busyOver(context, page, windowSeconds);
          windows.push({ round, condition, ...window });
          log(
            `  ${condition} round ${round + 1}: busy ${fmt(100 * window.busyShare)} %` +
              (window.playheadSpeed === null ? '' : `, playhead ${fmt(window.playheadSpeed, 2)}×`),
          );
        } finally {
          await page.close();
        }
      }
    }
  } finally {
    await context.close();
  }
  return windows;
}

async function busyOver(
  context: BrowserContext,
  page: Page,
  seconds: number,
): Promise<Omit<ReplayWindow, 'round' | 'condition'>> {
  const cdp: CDPSession = await context.newCDPSession(page);
  try {
    await enablePageMetrics(cdp);
    const metrics = (): Promise<PageMetrics> => readPageMetrics(cdp);
    const atParam = (): number => Number(new URL(page.url()).searchParams.get('at') ?? NaN);
    const loadBefore = load();
    const first = await metrics();
    const atFirst = atParam();
    await sleep(seconds * 1000);
    const last = await metrics();
    const atLast = atParam();
    const delta = (name: string): number => (last[name] ?? NaN) - (first[name] ?? NaN);
    const wall = delta('Timestamp');
    return {
      busyShare: delta('TaskDuration') / wall,
      scriptShare: delta('ScriptDuration') / wall,
      playheadSpeed: Number.isFinite(atFirst) ? (atLast - atFirst) / (wall * 1000) : null,
      load: Math.max(loadBefore, load()),
    };
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

function replayRow(windows: ReplayWindow[], windowSeconds: number): TableRow {
  const of = (condition: ReplayWindow['condition'], get: (w: ReplayWindow) => number): Summary =>
    summarize(windows.filter((w) => w.condition === condition).map(get));
  const replay = of('replay', (w) => 100 * w.busyShare);
  const live = of('live', (w) => 100 * w.busyShare);
  const speed = of('replay', (w) => w.playheadSpeed ?? NaN);
  return {
    measurement: 'replay in Chromium',
    condition:
      `recorded 15 min replayed at ${REPLAY_SPEED}× vs the live view at 20 Hz (scans running), ` +
      `${replay.n} + ${live.n} alternated windows of ${windowSeconds} s`,
    result:
      `main thread busy ${fmtSummary(replay, 1)} % replaying vs ${fmtSummary(live, 1)} % live; script ` +
      `${fmt(of('replay', (w) => 100 * w.scriptShare).median)} vs ${fmt(of('live', (w) => 100 * w.scriptShare).median)} %; ` +
      `playhead ${fmt(speed.median, 2)}× real time; load average ${loadText(windows)}`,
    target: 'replay ≤ live',
    verdict: verdict(replay.median <= live.median),
  };
}

function loadText(runs: readonly { load: number }[]): string {
  const summary = summarize(runs.map((run) => run.load));
  return `${fmt(summary.min, 2)}–${fmt(summary.max, 2)}`;
}
