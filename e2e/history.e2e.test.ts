import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyFramesSchema, type HistoryFrames, type LiveFrame, type ScanView } from '@aioscope/spec';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { freePort } from '../apps/server/test/support/testPostgres.ts';
import { runCli, type CliRun } from '../apps/server/test/support/cliProcess.ts';
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

async function stop(run: CliRun | undefined): Promise<void> {
  if (run?.child.exitCode === null) {
    run.child.kill('SIGTERM');
    await run.exited;
  }
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
    app = runCli(['--embedded', '--port', String(await freePort()), '--data-dir', DATA_DIR, '--demo-table-mb', '256']);
    baseUrl = await urlOf(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await Promise.all([stop(app), stop(opened)]);
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
    opened = runCli(['open', exportFile, '--port', String(await freePort())]);
    const openedUrl = await urlOf(opened, 30_000);
    const targets = (await (await fetch(`${openedUrl}/api/targets`)).json()) as { id: string; kind: string }[];
    expect(targets.map((target) => target.kind)).toEqual(['recording']);
    const second = await openPage(
      `${openedUrl}/?target=${targets[0]?.id ?? ''}&from=${scan.from}&to=${scan.to}&at=${Math.floor(scan.scanAt)}`,
    );
    expect(await figures(second.dashboard), 'the recording file shows the figures the live store did').toEqual(shown);
    expect([...first.errors, ...second.errors].join('\n')).toBe('');
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
    await expect.poll(() => page.getByTestId('open-recording-message').innerText()).toMatch(/^Cannot open .*: .+/);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByTestId('open-recording').setInputFiles(exportFile);
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/t\/recording-/);
    await expect.poll(() => page.getByTestId('time-state').innerText()).toBe('paused on a range');
    await page.getByTestId('inflight-peak').waitFor();
    expect(await dashboard.inflightPeak()).toBeGreaterThan(0);
    await rm(foreign, { force: true });
    // The page asked for a foreign file on purpose: the server's 400 for it is the one console error.
    expect(errors.filter((error) => !error.includes('400')).join('\n')).toBe('');
  });
});
