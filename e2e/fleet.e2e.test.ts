import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import type { EmbeddedPostgresServer } from '../apps/server/src/plugins/embeddedPostgres.ts';
import { freePort, startTestPostgres } from '../apps/server/test/support/testPostgres.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-fleet');
const TARGETS_FILE = path.join(DATA_DIR, 'targets.yml');

/** One server of the targets file: where it listens, no password (aioscope reads ~/.pgpass or PGPASSFILE). */
function entry(name: string, server: EmbeddedPostgresServer, env: string): string {
  const config = server.connectionConfig;
  return [
    `- name: ${name}`,
    `  host: 127.0.0.1`,
    `  port: ${String(config.port)}`,
    `  user: ${String(config.user)}`,
    `  database: ${String(config.database ?? 'postgres')}`,
    `  labels: { env: ${env} }`,
  ].join('\n');
}

describe('many servers: overview → a server → switch → back', () => {
  let primary: EmbeddedPostgresServer;
  let reports: EmbeddedPostgresServer;
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
    await mkdir(DATA_DIR, { recursive: true });
    await mkdir(ARTIFACTS, { recursive: true });
    [primary, reports] = await Promise.all([startTestPostgres('e2e-fleet-a'), startTestPostgres('e2e-fleet-b')]);
    await writeFile(
      TARGETS_FILE,
      `${entry('orders primary', primary, 'prod')}\n${entry('reports', reports, 'staging')}\n`,
    );
    // The file names no password: each cluster's random one comes from a pgpass file, as psql reads it.
    const passFile = path.join(DATA_DIR, 'pgpass');
    const line = (s: EmbeddedPostgresServer): string =>
      `127.0.0.1:${String(s.connectionConfig.port)}:*:${String(s.connectionConfig.user)}:${String(s.connectionConfig.password)}`;
    await writeFile(passFile, `${line(primary)}\n${line(reports)}\n`, { mode: 0o600 });
    app = runCli(['--targets', TARGETS_FILE, '--port', String(await freePort()), '--data-dir', DATA_DIR], {
      PGPASSFILE: passFile,
    });
    baseUrl = (await waitForUrl(app)).replace(/\/$/, '');
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    if (app?.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await Promise.all([primary?.stop(), reports?.stop()]);
  });

  it('lands on the overview, opens a server, switches without a reload and comes back', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const page = await context.newPage();
    await page.goto(baseUrl);
    await page.getByTestId('overview-page').waitFor();
    const rows = page.locator('[data-testid^="overview-row-"]');
    await expect.poll(() => rows.count()).toBe(2);
    await expect
      .poll(async () => (await rows.locator('.badge').allInnerTexts()).join(','), { timeout: 60_000 })
      .toBe('live,live');
    await writeFile(path.join(ARTIFACTS, 'fleet-overview.png'), await page.screenshot({ fullPage: true }));

    // The filter reads labels: only the production server is left.
    await page.getByTestId('overview-filter').fill('env=prod');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByTestId('overview-filter').fill('');

    // A marker that survives only if the page is not reloaded.
    await page.evaluate('window.__sameDocument = true');
    await page.getByRole('link', { name: 'orders primary' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/t/orders-primary');
    await page.getByRole('heading', { name: 'Reads in flight' }).waitFor();
    await expect.poll(() => page.getByTestId('target-name').innerText()).toContain('orders primary');

    // Keyboard: the switcher is a native select.
    const switcher = page.getByTestId('target-switcher');
    await switcher.focus();
    await switcher.selectOption('reports');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/t/reports');
    await expect.poll(() => page.getByTestId('target-name').innerText()).toContain('reports');

    await page.getByRole('link', { name: /all servers/ }).click();
    await page.getByTestId('overview-page').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate('window.__sameDocument === true')).toBe(true);

    // Back returns to the server just left.
    await page.goBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/t/reports');
    expect(errors.join('\n')).toBe('');
    await context.close();
  });
});
