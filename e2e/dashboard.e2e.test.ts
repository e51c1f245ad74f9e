import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { isProcessAlive } from '../apps/server/src/system/processes.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { DashboardPage } from './pages/DashboardPage.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e');
const SHUTDOWN_DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-shutdown');
const SHUTDOWN_POSTMASTER_PID = path.join(SHUTDOWN_DATA_DIR, 'pg18/data/postmaster.pid');

/** Builds the web app into a temporary folder with extra environment variables; returns its files. */
async function buildWebWithEnvironment(extra: Record<string, string>): Promise<{ outDir: string; files: string[] }> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'aioscope-build-'));
  const saved = Object.fromEntries(Object.keys(extra).map((name) => [name, process.env[name]]));
  Object.assign(process.env, extra);
  try {
    await build({
      root: path.join(REPO_ROOT, 'apps/web'),
      configFile: path.join(REPO_ROOT, 'apps/web/vite.config.ts'),
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true },
    });
    const files = await readdir(outDir, { recursive: true, withFileTypes: true });
    return {
      outDir,
      files: files.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)),
    };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
}
/** The promise: live AIO on screen within 30 s of start; the test allows CI some slack. */
const LIVE_TIMEOUT_MS = 60_000;

describe('dashboard in Chromium, embedded PostgreSQL 18 with the demo workload', () => {
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    app = runCli(['--embedded', '--port', '0', '--data-dir', DATA_DIR, '--demo-table-mb', '256']);
    baseUrl = await waitForUrl(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    if (app?.child.exitCode === null) app.child.kill('SIGTERM');
  });

  it('shows reads in flight, ~128 kB per read and busy io workers, in dark and light', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1600, height: 1000 }, colorScheme: 'dark' });
    const consoleErrors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);

    await dashboard.waitUntil(
      'reads in flight, bytes per read near 128 kB and busy io workers',
      async () => {
        const [peak, perRead, busy] = await Promise.all([
          dashboard.inflightPeak(),
          dashboard.bytesPerReadLive(),
          dashboard.workerBusyFraction(),
        ]);
        return (peak ?? 0) > 0 && perRead !== null && perRead > 96 * 1024 && perRead <= 128 * 1024 && (busy ?? 0) > 0;
      },
      LIVE_TIMEOUT_MS,
    );
    expect(await dashboard.inflightPeak()).toBeGreaterThan(0);
    const perRead = await dashboard.bytesPerReadLive();
    expect(perRead).toBeGreaterThan(96 * 1024);
    expect(perRead).toBeLessThanOrEqual(128 * 1024);
    expect(await dashboard.workerBusyFraction()).toBeGreaterThan(0);
    expect(await dashboard.connectionState()).toBe('live');
    // The strip follows frames between chart buckets: 10 s of 20 Hz samples, and it moves on.
    await dashboard.waitUntil(
      '5 s of samples in the strip',
      async () => (await dashboard.sampleStrip()).samples >= 100,
      15_000,
    );
    const strip = await dashboard.sampleStrip();
    expect(strip.samples).toBeLessThanOrEqual(202);
    await expect.poll(async () => (await dashboard.sampleStrip()).newestT).toBeGreaterThan(strip.newestT);

    await dashboard.screenshotWholePage(path.join(ARTIFACTS, 'dashboard-dark.png'));
    await dashboard.toggleTheme();
    await dashboard.screenshotWholePage(path.join(ARTIFACTS, 'dashboard-light.png'));
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('maps a scan mid-way and shows a selected process in detail', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1600, height: 2400 }, colorScheme: 'dark' });
    const consoleErrors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);

    await dashboard.waitForScanBetween(0.2, 0.8, LIVE_TIMEOUT_MS);
    const scanText = await dashboard.scanMap().innerText();
    expect(scanText).toContain('aioscope_demo.scan_me');
    expect(scanText).toMatch(/look-ahead \d+ blocks/);
    await dashboard.scanMap().screenshot({ path: path.join(ARTIFACTS, 'scan-map.png') });

    const pid = await dashboard.selectClientBackend();
    expect(pid).toBeGreaterThan(0);
    await dashboard.waitUntil(
      'the process detail',
      async () => (await dashboard.processDetailTitle()).includes(String(pid)),
      10_000,
    );
    await dashboard.page.getByTestId('process-query').waitFor();
    expect(await dashboard.processQuery()).toMatch(/SELECT count\(\*\)/);
    await dashboard.screenshotWholePage(path.join(ARTIFACTS, 'triage-dark.png'));

    // An io worker's detail: what is known of it (busy share, its waits), not an empty reads chart.
    const workerPid = await dashboard.selectProcessOfType('io worker');
    await dashboard.waitUntil(
      'the io worker detail',
      async () => (await dashboard.processDetailTitle()).includes(`${workerPid} · io worker`),
      10_000,
    );
    const workerDetail = dashboard.page.getByTestId('panel-process-detail');
    expect(await workerDetail.getByTestId('worker-busy').innerText()).toMatch(/\d+(\.\d+)?\u00a0%/);
    expect(await workerDetail.innerText()).toMatch(/PostgreSQL does not say/);
    expect(await workerDetail.innerText()).not.toMatch(/pg_stat_get_backend_io/);
    // An explanation opened by a resting pointer takes the first Escape (WCAG 1.4.13), and only it.
    await dashboard.page.getByRole('button', { name: 'About sample rates' }).hover();
    await dashboard.page.getByRole('tooltip').waitFor();
    await dashboard.page.keyboard.press('Escape');
    await dashboard.page.getByRole('tooltip').waitFor({ state: 'detached' });
    expect(await dashboard.processDetailTitle()).toContain(`${workerPid} · io worker`);
    // The next Escape closes the detail.
    await dashboard.page.keyboard.press('Escape');
    await dashboard.waitUntil(
      'the detail to close on Escape',
      async () => (await dashboard.processDetailTitle()) === 'Process detail',
      5_000,
    );
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('runs a scan-lab experiment from the UI and shows its medians', async () => {
    const context = await chromium.browser.newContext({
      viewport: { width: 1600, height: 1000 },
      colorScheme: 'light',
    });
    const consoleErrors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);
    await dashboard.startExperiment({ variants: 'icl=1;icl=16', rounds: 2, tableMb: 64 });
    await dashboard.waitForExperimentDone(120_000);
    const medians = await dashboard.page.getByTestId('lab-medians').innerText();
    expect(medians).toMatch(/icl=1\s+2\s+[\d.]+ ms/);
    expect(medians).toMatch(/icl=16\s+2\s+[\d.]+ ms/);
    expect(medians).toMatch(/8(\.0)?\u00a0kB/);
    expect(medians).toMatch(/12\d(\.\d)?\u00a0kB/);
    expect(await dashboard.labPanel().innerText()).toMatch(/indicative/);
    await dashboard.labPanel().scrollIntoViewIfNeeded();
    await dashboard.labPanel().screenshot({ path: path.join(ARTIFACTS, 'lab-light.png') });
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('builds and serves a page whose HTML and scripts never contain the database password', async () => {
    const { password } = JSON.parse(readFileSync(path.join(DATA_DIR, 'pg18/credentials.json'), 'utf8')) as {
      password: string;
    };
    expect(password.length).toBeGreaterThan(8);
    // The assets served here were built before this cluster's password existed, so searching them
    // alone could never fail. Build the page again with the password where a build could pick it
    // up (the environment psql and aioscope read), and search that build too.
    const built = await buildWebWithEnvironment({
      PGPASSWORD: password,
      DATABASE_URL: `postgres://aioscope:${password}@127.0.0.1:5432/postgres`,
    });
    try {
      expect(built.files.length, 'files in the fresh build').toBeGreaterThan(1);
      for (const file of built.files) expect(readFileSync(file, 'utf8'), file).not.toContain(password);
    } finally {
      await rm(built.outDir, { recursive: true, force: true });
    }

    const html = await (await fetch(baseUrl)).text();
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(scripts.length).toBeGreaterThan(0);
    for (const text of [
      html,
      ...(await Promise.all(scripts.map(async (src) => (await fetch(new URL(src, baseUrl))).text()))),
    ]) {
      expect(text).not.toContain(password);
    }
  });
});

describe('shutdown', () => {
  // Its own process: the tests above neither depend on running before this one nor lose their server to it.
  it('stops on SIGTERM and leaves no PostgreSQL running', async () => {
    const app = runCli(['--embedded', '--port', '0', '--data-dir', SHUTDOWN_DATA_DIR, '--no-demo']);
    await waitForUrl(app);
    expect(existsSync(SHUTDOWN_POSTMASTER_PID)).toBe(true);
    const postmasterPid = Number(readFileSync(SHUTDOWN_POSTMASTER_PID, 'utf8').split('\n')[0]);
    expect(isProcessAlive(postmasterPid)).toBe(true);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    expect(isProcessAlive(postmasterPid)).toBe(false);
    expect(existsSync(SHUTDOWN_POSTMASTER_PID)).toBe(false);
  });
});
