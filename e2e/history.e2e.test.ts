import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  historyExtentSchema,
  historyFramesSchema,
  targetListSchema,
  type HistoryFrames,
  type LiveFrame,
  type ScanView,
} from '@aioscope/spec';
import { keptRange } from '../apps/web/src/timeline/overviewRange.ts';
import { formatDuration } from '@aioscope/core';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { type CliRun, runCli, stopCli } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { DashboardPage, parseFigure } from './pages/DashboardPage.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-history');
const VIEWPORT = { width: 1280, height: 900 };
const DATA_TIMEOUT_MS = 120_000;

/** The URL a started aioscope prints, live or serving a recording. */
async function urlOf(run: CliRun, timeoutMs = 150_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /at (http:\/\/\S+)/.exec(run.stdout());
    // Without the trailing slash: the tests append /api/… and /?query to it.
    if (match?.[1] !== undefined) return match[1].replace(/\/$/, '');
    if (run.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`aioscope did not start:\n${run.stdout()}\n${run.stderr()}`);
}

async function framesOf(baseUrl: string, from: number, to: number): Promise<HistoryFrames> {
  const response = await fetch(`${baseUrl}/api/targets/embedded/history/frames?from=${from}&to=${to}`);
  expect(response.status).toBe(200);
  return historyFramesSchema.parse(await response.json());
}

/** A scan still reading, between 15 % and 60 % of its relation. */
function isMidScan(scan: ScanView): boolean {
  return !scan.ended && scan.progress !== null && scan.progress > 0.15 && scan.progress < 0.6;
}

/** Index of the first frame after `t`: the sample a moment `t` shows is the one before it. */
function firstAfterT(frames: readonly LiveFrame[], t: number): number {
  const index = frames.findIndex((frame) => frame.t > t);
  return index === -1 ? frames.length : index;
}

/** A recorded frame in the middle of a scan, or undefined. */
function midScanFrame(frames: readonly LiveFrame[]): LiveFrame | undefined {
  return frames.find((frame) => (frame.scans ?? []).some(isMidScan));
}

describe('history: pause, zoom, events, replay, share', () => {
  let app: CliRun;
  let opened: CliRun | undefined;
  let baseUrl: string;
  let chromium: LaunchedBrowser;
  const exportFile = path.join(tmpdir(), `aioscope-e2e-${process.pid}.aioscope.gz`);

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await rm(DATA_DIR, { recursive: true, force: true });
    app = runCli(['--embedded', '--port', '0', '--data-dir', DATA_DIR, '--demo-table-mb', '256']);
    baseUrl = await urlOf(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await Promise.all([stopCli(app), stopCli(opened)]);
    await rm(exportFile, { force: true });
  });

  async function openPage(url: string): Promise<{ dashboard: DashboardPage; errors: string[] }> {
    const context = await chromium.browser.newContext({ viewport: VIEWPORT });
    const errors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.page.goto(url);
    await dashboard.page.getByTestId('time-controls').waitFor();
    return { dashboard, errors };
  }

  /**
   * Waits until the recorder holds a frame in the middle of a scan, at least 8 s old, and returns
   * 45 s around it that lie wholly in the past: a range that no longer grows while the test reads it.
   */
  async function recordedScan(): Promise<{ from: number; to: number; scanAt: number; pid: number }> {
    const deadline = Date.now() + DATA_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const to = Date.now() - 8_000;
      const range = await framesOf(baseUrl, to - 30_000, to);
      const frame = midScanFrame(range.frames);
      const scan = frame?.scans?.find(isMidScan);
      if (frame !== undefined && scan !== undefined) {
        const at = Math.floor(frame.t);
        return { from: at - 40_000, to: at + 5_000, scanAt: frame.t, pid: scan.pid };
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    throw new Error('no scan was recorded in time');
  }

  it('pauses the live view (it stops moving) and goes back to live', async () => {
    const { dashboard, errors } = await openPage(baseUrl);
    const { page } = dashboard;
    await dashboard.waitUntil(
      'reads seen',
      async () => Number(await page.getByTestId('reads-seen').innerText()) > 0,
      DATA_TIMEOUT_MS,
    );
    await page.getByTestId('pause').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('paused on a range');
    const url = new URL(page.url());
    expect(Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'))).toBe(60_000);
    const strip = await dashboard.sampleStrip();
    // A fixed wait on purpose: nothing may change while paused, and 1.5 s is 30 frames at 20 Hz.
    await page.waitForTimeout(1_500);
    expect(await dashboard.sampleStrip(), 'the per-sample strip holds still while paused').toEqual(strip);
    await page.getByTestId('back-to-live').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('live');
    await expect.poll(async () => (await dashboard.sampleStrip()).newestT).toBeGreaterThan(strip.newestT);

    // The range buttons: the last minute with every sample, the last hour from roll-ups.
    await page.getByRole('button', { name: '1 min', exact: true }).click();
    await expect.poll(() => page.getByTestId('time-range').innerText()).toContain('every sample');
    await expect.poll(() => dashboard.inflightPeak(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: '1 h', exact: true }).click();
    await expect.poll(() => page.getByTestId('time-range').innerText()).toContain('roll-ups');
    await page
      .getByTestId('rollup-panels')
      .getByRole('img', { name: /^reads in flight, max and mean/ })
      .waitFor();
    expect(errors.join('\n')).toBe('');
  });

  it('zooms by dragging across a chart, and a marker takes the view to its event', async () => {
    const scan = await recordedScan();
    const { dashboard, errors } = await openPage(`${baseUrl}/?target=embedded&from=${scan.from}&to=${scan.to}`);
    const { page } = dashboard;
    const chart = page.getByRole('img', { name: /^reads in flight by state/ });
    // Drawn with the range's samples (the figures come with them), not the empty first render.
    await expect.poll(() => dashboard.inflightPeak(), { timeout: 30_000 }).toBeGreaterThan(0);
    // The visible canvas: uPlot's axes layer is drawn into it and kept hidden (layeredPlot.ts).
    await chart.locator('canvas:visible').first().waitFor();
    // Panels above it (the history strip, status lines) may still be growing: drag where the chart
    // is once it has stopped moving (a drag off the plot zooms nothing).
    let box = await chart.boundingBox();
    await expect
      .poll(async () => {
        const previous = box;
        box = await chart.boundingBox();
        return previous !== null && box !== null && previous.y === box.y && previous.height === box.height;
      })
      .toBe(true);
    if (box === null) throw new Error('the chart has no box');
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect
      .poll(() => {
        const url = new URL(page.url());
        return Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'));
      })
      .toBeLessThan(15_000);
    const zoomed = new URL(page.url());
    expect(Number(zoomed.searchParams.get('from'))).toBeGreaterThanOrEqual(scan.from);
    expect(Number(zoomed.searchParams.get('to'))).toBeLessThanOrEqual(scan.to);

    // The recorder notes that the target connected at start: a marker on the overview strip.
    const marker = page.getByTestId('event-marker').first();
    await marker.waitFor({ timeout: 15_000 });
    const label = (await marker.getAttribute('aria-label')) ?? '';
    await marker.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('at')).not.toBeNull();
    const at = Number(new URL(page.url()).searchParams.get('at'));
    expect(label).toContain(new Date(at).toLocaleString('en-US').split(',')[0] ?? '');
    expect(errors.join('\n')).toBe('');
  });

  it('replays a recorded scan in slow motion: the scan map advances and sample steps move the moment', async () => {
    const scan = await recordedScan();
    // The moment of the mid-scan frame itself (ceil: frame times carry 0.1 ms): 200 ms earlier, as
    // before, could be before a fast scan had started (CI: no scan on the map to wait for).
    const start = Math.ceil(scan.scanAt);
    const { dashboard, errors } = await openPage(
      `${baseUrl}/?target=embedded&from=${scan.from}&to=${scan.to}&at=${start}&speed=0.25`,
    );
    const { page } = dashboard;
    // That scan's own figure: other scans (finishing, or started later) share the map.
    const progress = page
      .locator('.scan-button', { hasText: `pid ${scan.pid} ` })
      .first()
      .getByTestId('scan-progress');
    await progress.waitFor();
    const before = parseFigure(await progress.innerText()) ?? 0;
    await page.getByTestId('replay-play').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('replaying');
    await expect
      .poll(async () => parseFigure(await progress.innerText()) ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(before);
    await page.getByTestId('replay-play').click();
    const moment = await page.getByTestId('moment').innerText();
    await page.getByRole('button', { name: 'next sample' }).click();
    await expect.poll(() => page.getByTestId('moment').innerText()).not.toBe(moment);
    await writeFile(path.join(ARTIFACTS, 'history-replay.png'), await page.screenshot({ fullPage: false }));
    expect(errors.join('\n')).toBe('');
  });

  it('a range preset is exactly its length, shows as pressed, and its replay starts at the range start', async () => {
    const { dashboard, errors } = await openPage(baseUrl);
    const { page } = dashboard;
    await dashboard.waitUntil(
      'reads seen',
      async () => Number(await page.getByTestId('reads-seen').innerText()) > 0,
      DATA_TIMEOUT_MS,
    );
    for (const [label, ms] of [
      ['1 min', 60_000],
      ['15 min', 15 * 60_000],
    ] as const) {
      const button = page.getByRole('button', { name: label, exact: true });
      await button.click();
      await expect.poll(() => dashboard.rangeOfUrl()).not.toBeNull();
      const range = dashboard.rangeOfUrl();
      expect(range === null ? null : range.to - range.from, `"${label}" is ${ms} ms`).toBe(ms);
      expect(await button.getAttribute('aria-pressed')).toBe('true');
      // 15 minutes is the longest range drawn with every sample.
      await expect.poll(() => page.getByTestId('time-range').innerText()).toContain('every sample');
    }
    await page.getByRole('button', { name: '1 min', exact: true }).click();
    await expect
      .poll(() => page.getByRole('button', { name: '1 min', exact: true }).getAttribute('aria-pressed'))
      .toBe('true');
    const range = dashboard.rangeOfUrl();
    if (range === null) throw new Error('no range after "1 min"');
    await page.getByTestId('replay-play').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('replaying');
    // At 1x the playhead has moved a few seconds from the start, nowhere near the end.
    expect((dashboard.momentOfUrl() ?? range.to) - range.from).toBeLessThan(30_000);
    expect(errors.join('\n')).toBe('');
  });

  it('steps one sample per click and per arrow key on the slider, both ways, at any speed and after a replay', async () => {
    const scan = await recordedScan();
    const { frames } = await framesOf(baseUrl, scan.from, scan.to);
    // The sample a moment shows: the newest at or before it.
    const shownIndex = (at: number | null): number => (at === null ? -1 : firstAfterT(frames, at) - 1);
    // A whole-ms moment between samples, as a link or a replay leaves it (sample times have fractions).
    // At or after the range's first sample, so that every step back has a sample to go to (the
    // recording may begin mid-scan: the scan's frame is then the first).
    const start = Math.floor(Math.max(scan.scanAt, frames[1]?.t ?? scan.scanAt));
    const { dashboard, errors } = await openPage(`${baseUrl}/t/embedded?from=${scan.from}&to=${scan.to}&at=${start}`);
    const { page } = dashboard;
    await page.getByTestId('moment-slider').waitFor();
    await expect.poll(() => dashboard.inflightPeak(), { timeout: 30_000 }).toBeGreaterThan(0);
    const expectSteps = async (act: () => Promise<void>, direction: -1 | 1, times: number): Promise<void> => {
      for (let i = 0; i < times; i++) {
        const beforeAt = dashboard.momentOfUrl();
        const before = shownIndex(beforeAt);
        await act();
        await expect
          .poll(() => shownIndex(dashboard.momentOfUrl()), {
            message: `step ${i + 1} of ${times} from the moment ${beforeAt} (sample ${before})`,
          })
          .toBe(before + direction);
      }
    };
    const next = page.getByRole('button', { name: 'next sample' });
    const previous = page.getByRole('button', { name: 'previous sample' });
    await expectSteps(() => next.click(), 1, 3);
    await expectSteps(() => previous.click(), -1, 3);
    const slider = page.getByTestId('moment-slider');
    await slider.focus();
    await expectSteps(() => page.keyboard.press('ArrowRight'), 1, 2);
    await expectSteps(() => page.keyboard.press('ArrowLeft'), -1, 2);
    // PageUp/PageDown: a second of the recording.
    const before = dashboard.momentOfUrl() ?? 0;
    await page.keyboard.press('PageUp');
    await expect.poll(() => dashboard.momentOfUrl()).toBe(before + 1_000);
    await page.keyboard.press('PageDown');
    await expect.poll(() => dashboard.momentOfUrl()).toBe(before);
    // After a replay at 16x, left between samples where it ended by itself: the range's end. The
    // last 5 s of the range take about 0.3 s at 16x, so a click to pause it raced its end (and,
    // when the end came first, started it again).
    await page.getByTestId('replay-speed').selectOption('16');
    await page.getByTestId('replay-play').click();
    await expect.poll(() => dashboard.momentOfUrl(), { timeout: 15_000 }).toBe(scan.to);
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('replay paused');
    await expectSteps(() => previous.click(), -1, 2);
    await expectSteps(() => next.click(), 1, 2);
    expect(errors.join('\n')).toBe('');
  });

  it('a moment draws the same processes and io worker verdict whether played up to or opened from its link', async () => {
    const scan = await recordedScan();
    const start = Math.ceil(scan.scanAt);
    const { dashboard, errors } = await openPage(
      `${baseUrl}/t/embedded?from=${scan.from}&to=${scan.to}&at=${start}&speed=1`,
    );
    const { page } = dashboard;
    await page.getByTestId('replay-play').waitFor();
    await page.getByTestId('replay-play').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('replaying');
    await expect.poll(() => dashboard.momentOfUrl() ?? 0, { timeout: 15_000 }).toBeGreaterThan(start + 2_000);
    await page.getByTestId('replay-play').click();
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('replay paused');
    const played = await dashboard.processRows();
    expect(played.length).toBeGreaterThan(0);
    const fresh = await openPage(page.url());
    await expect.poll(() => fresh.dashboard.processRows(), { timeout: 30_000 }).toEqual(played);

    // Paused on the range (not replaying) mid-scan, 5 s before the range's end: the verdict and
    // "busy now" are of the moment's sample, not of the range's last one.
    const at = start;
    const paused = await openPage(`${baseUrl}/t/embedded?from=${scan.from}&to=${scan.to}&at=${at}`);
    const { frames } = await framesOf(baseUrl, scan.from, scan.to);
    const shown = frames[firstAfterT(frames, at) - 1];
    if (shown === undefined) throw new Error('no sample at the moment');
    const busy = `${shown.ioWorkers.filter((worker) => worker.busy).length} of ${shown.ioWorkers.length}`;
    const clock = await paused.dashboard.page.evaluate(
      (t) => new Date(t).toLocaleTimeString([], { hour12: false }),
      shown.t,
    );
    await expect
      .poll(() => paused.dashboard.page.getByTestId('worker-verdict').innerText(), { timeout: 30_000 })
      .toContain(`up to ${clock}`);
    expect(await paused.dashboard.page.getByTestId('worker-busy-now').innerText()).toBe(busy);
    expect([...errors, ...fresh.errors, ...paused.errors].join('\n')).toBe('');
  });

  it('a shared link reopens the same view; an exported file opened with `open` shows the same figures, no database', async () => {
    const scan = await recordedScan();
    const link = `${baseUrl}/?target=embedded&from=${scan.from}&to=${scan.to}&at=${Math.floor(scan.scanAt)}`;
    const first = await openPage(link);
    const figures = async (page: DashboardPage): Promise<(number | null)[]> => {
      await page.page.getByTestId('inflight-peak').waitFor();
      return [
        await page.inflightPeak(),
        await page.bytesPerReadLive(),
        parseFigure(await page.page.getByTestId('reads-seen').innerText()),
      ];
    };
    const shown = await figures(first.dashboard);
    expect(shown[0]).toBeGreaterThan(0);
    await first.dashboard.page.reload();
    expect(await figures(first.dashboard), 'the same view after a reload').toEqual(shown);
    expect(await first.dashboard.page.getByTestId('time-range').innerText()).toContain('(45 s)');

    const exported = await fetch(`${baseUrl}/api/targets/embedded/history/export?from=${scan.from}&to=${scan.to}`);
    expect(exported.status).toBe(200);
    await writeFile(exportFile, Buffer.from(await exported.arrayBuffer()));
    opened = runCli(['open', exportFile, '--port', '0']);
    const openedUrl = await urlOf(opened, 30_000);
    const targets = (await (await fetch(`${openedUrl}/api/targets`)).json()) as { id: string; kind: string }[];
    expect(targets.map((target) => target.kind)).toEqual(['recording']);
    const second = await openPage(
      `${openedUrl}/?target=${targets[0]?.id ?? ''}&from=${scan.from}&to=${scan.to}&at=${Math.floor(scan.scanAt)}`,
    );
    expect(await figures(second.dashboard), 'the recording file shows the figures the live store did').toEqual(shown);
    // Its front page is the file's own range at its last moment: "5 min" of a 5-minute file, "now" figures shown.
    const third = await openPage(openedUrl);
    await expect.poll(() => third.dashboard.rangeOfUrl()).toEqual({ from: scan.from, to: scan.to });
    expect(third.dashboard.momentOfUrl()).toBe(scan.to);
    await third.dashboard.page.getByTestId('inflight-now').waitFor();
    // The figure appears before the file's frames reach it: wait for its value, not only the element.
    await expect
      .poll(() => third.dashboard.page.getByTestId('inflight-now').innerText(), { timeout: 15_000 })
      .not.toBe('–');
    expect(await third.dashboard.page.getByTestId('connection-state').innerText()).toBe('recording file');
    expect([...first.errors, ...second.errors, ...third.errors].join('\n')).toBe('');
  });

  it('opens a recording file chosen on the page; a foreign file gets the reason and changes nothing', async () => {
    const scan = await recordedScan();
    const exported = await fetch(`${baseUrl}/api/targets/embedded/history/export?from=${scan.from}&to=${scan.to}`);
    await writeFile(exportFile, Buffer.from(await exported.arrayBuffer()));
    const foreign = `${exportFile}.txt`;
    await writeFile(foreign, 'not a recording');
    const { dashboard, errors } = await openPage(baseUrl);
    const { page } = dashboard;
    await page.getByTestId('open-recording').setInputFiles(foreign);
    // Opening is checked in a worker thread on a busy machine: seconds, not the poll's default one.
    await expect
      .poll(() => page.getByTestId('open-recording-message').innerText(), { timeout: 30_000 })
      .toMatch(/^Cannot open .*: .+/);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByTestId('open-recording').setInputFiles(exportFile);
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 30_000 }).toMatch(/^\/t\/recording-/);
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('paused on a range');
    await page.getByTestId('inflight-peak').waitFor();
    expect(await dashboard.inflightPeak()).toBeGreaterThan(0);

    // A file has no live edge: the badge says what is shown, it opens at its last moment (its
    // "now" figures show samples), and a preset ends where the file does.
    const recordingId = new URL(page.url()).pathname.split('/')[2] ?? '';
    const targets = targetListSchema.parse(await (await fetch(`${baseUrl}/api/targets`)).json());
    const file = targets.find((target) => target.id === recordingId)?.recording;
    if (file === undefined || file === null) throw new Error(`no recording ${recordingId} in /api/targets`);
    expect(await page.getByTestId('connection-state').innerText()).toBe('recording file');
    expect(dashboard.momentOfUrl()).toBe(file.to);
    expect(await page.getByTestId('inflight-now').innerText()).not.toBe('–');
    await writeFile(path.join(ARTIFACTS, 'history-opened-file.png'), await page.screenshot({ fullPage: false }));
    await page.getByRole('button', { name: '1 min', exact: true }).click();
    await expect.poll(() => dashboard.rangeOfUrl()).toEqual({ from: file.to - 60_000, to: file.to });
    await expect.poll(() => dashboard.inflightPeak(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('inflight-now').innerText()).not.toBe('–');

    // The overview strip names what the file holds, not a range rounded to minutes.
    const extent = historyExtentSchema.parse(
      await (await fetch(`${baseUrl}/api/targets/${recordingId}/history`)).json(),
    );
    const kept = keptRange(extent);
    if (kept === null) throw new Error('the file keeps nothing');
    await expect
      .poll(() => page.getByTestId('overview-strip').innerText())
      .toContain(`All kept history: ${formatDuration(kept.to - kept.from, 'span')},`);
    await rm(foreign, { force: true });
    // The page asked for a foreign file on purpose: the server's 400 for it is the one console error.
    expect(errors.filter((error) => !error.includes('400')).join('\n')).toBe('');
  });
});
