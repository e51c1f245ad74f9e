import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import type { EmbeddedPostgresServer } from '../apps/server/src/postgres/embeddedPostgres.ts';
import { startDebianPostgres, type DebianPostgres } from '../apps/server/test/support/debianPostgres.ts';
import { connect, startTestPostgres } from '../apps/server/test/support/testPostgres.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
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
  let pg15: DebianPostgres;
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
    await mkdir(DATA_DIR, { recursive: true });
    await mkdir(ARTIFACTS, { recursive: true });
    [primary, reports, pg15] = await Promise.all([
      startTestPostgres('e2e-fleet-a'),
      startTestPostgres('e2e-fleet-b'),
      startDebianPostgres(15),
    ]);
    // A role without grants (no pg_read_all_stats, no pg_monitor) on the reports cluster.
    const admin = await connect(reports);
    await admin.query(`CREATE ROLE e2e_plain LOGIN PASSWORD 'e2e-plain-pw'`);
    await admin.end();
    await writeFile(TARGETS_FILE, fleetFile(true));
    // The file names no password: each cluster's random one comes from a pgpass file, as psql reads it.
    const passFile = path.join(DATA_DIR, 'pgpass');
    const line = (s: EmbeddedPostgresServer): string =>
      `127.0.0.1:${String(s.connectionConfig.port)}:*:${String(s.connectionConfig.user)}:${String(s.connectionConfig.password)}`;
    const plain = `127.0.0.1:${String(reports.connectionConfig.port)}:*:e2e_plain:e2e-plain-pw`;
    await writeFile(passFile, `${line(primary)}\n${line(reports)}\n${plain}\n`, { mode: 0o600 });
    app = runCli(['--targets', TARGETS_FILE, '--port', '0', '--data-dir', DATA_DIR], {
      PGPASSFILE: passFile,
    });
    baseUrl = (await waitForUrl(app)).replace(/\/$/, '');
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
    await Promise.all([primary?.stop(), reports?.stop(), pg15?.stop()]);
  });

  /** The fleet: two servers, a role without grants, and a PostgreSQL 15 that is refused; `reports` optional. */
  function fleetFile(withReports: boolean): string {
    const plain = { ...reports.connectionConfig, user: 'e2e_plain' } as EmbeddedPostgresServer['connectionConfig'];
    return [
      entry('orders primary', primary, 'prod'),
      ...(withReports ? [entry('reports', reports, 'staging')] : []),
      entry('no grants', { ...reports, connectionConfig: plain } as EmbeddedPostgresServer, 'staging'),
      `- name: old\n  url: ${pg15.url}\n  labels: { env: legacy }`,
    ].join('\n');
  }

  it('lands on the overview, opens a server, switches without a reload and comes back', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const page = await context.newPage();
    await page.goto(baseUrl);
    await page.getByTestId('overview-page').waitFor();
    const rows = page.locator('[data-testid^="overview-row-"]');
    await expect.poll(() => rows.count()).toBe(4);
    // Worst first: the refused server, then the role that cannot read pg_aios, then the healthy ones.
    await expect
      .poll(async () => (await rows.locator('.badge').allInnerTexts()).join(','), { timeout: 60_000 })
      .toBe('refused,live,live,live');
    await expect
      .poll(async () => (await rows.locator('.overview-name').allInnerTexts()).slice(0, 2).join(','), {
        timeout: 30_000,
      })
      .toBe('old,no grants');
    const blind = page.getByTestId('overview-row-no-grants').getByTestId('overview-attention');
    await expect
      .poll(() => blind.innerText(), { timeout: 30_000 })
      .toMatch(/cannot read pg_aios.*GRANT pg_read_all_stats/);
    // Each sparkline says its scale; the sampling cost is a share of a core.
    const primaryRow = page.getByTestId('overview-row-orders-primary');
    // The scales come with the first roll-ups of the server (a sparkline without a value has none).
    await expect
      .poll(async () => (await primaryRow.locator('.spark-scale').allInnerTexts()).join(',').replace(/\s/g, ' '), {
        timeout: 30_000,
      })
      // Bytes per read has a scale once a new read was seen in the 10 minutes (an idle server may have none).
      .toMatch(/^0–\d+,(0–128 kB,)?0–100 %$/);
    // Its reads-in-flight line is drawn from its first 10 s step (one step alone is a tick).
    expect(await primaryRow.locator('.spark-line').first().getAttribute('d')).toMatch(/h2|L[\d.]+,/);
    await expect.poll(() => primaryRow.innerText(), { timeout: 30_000 }).toMatch(/cost ≤ [\d.]+\s% of a core/);
    // At a laptop's width every column is in sight, "needs attention" included: none behind a scroll.
    expect(
      await page.locator('.table-scroll').evaluate((box) => box.scrollWidth - box.clientWidth),
    ).toBeLessThanOrEqual(0);
    expect(await page.getByTestId('overview-page').innerText()).not.toMatch(/audit warnings|of the time|\b(AM|PM)\b/);
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

    // Keyboard: arrows move a highlight through the servers, nothing loads until Enter.
    const switcher = page.getByTestId('target-switcher');
    await switcher.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => switcher.getAttribute('aria-expanded')).toBe('true');
    const highlighted = async (): Promise<string | null> => {
      const id = await switcher.getAttribute('aria-activedescendant');
      return id === null ? null : page.locator(`[id="${id}"]`).getAttribute('data-testid');
    };
    expect(await highlighted()).toBe('switcher-option-orders-primary');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await highlighted()).toBe('switcher-option-no-grants');
    await page.keyboard.press('ArrowUp');
    expect(await highlighted()).toBe('switcher-option-reports');
    expect(new URL(page.url()).pathname).toBe('/t/orders-primary');
    await expect.poll(() => page.getByTestId('target-name').innerText()).toContain('orders primary');
    await writeFile(path.join(ARTIFACTS, 'fleet-switcher-open.png'), await page.screenshot());
    // Escape closes without moving; Enter on the highlight opens that server.
    await page.keyboard.press('Escape');
    await expect.poll(() => switcher.getAttribute('aria-expanded')).toBe('false');
    expect(new URL(page.url()).pathname).toBe('/t/orders-primary');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/t/reports');
    await expect.poll(() => page.getByTestId('target-name').innerText()).toContain('reports');
    // The lab works on the first server only, and says so on the others.
    await expect
      .poll(() => page.getByTestId('panel-lab').innerText(), { timeout: 30_000 })
      .toMatch(/works on one server of this aioscope, the first one: orders primary/);
    // Clock times are 24-hour everywhere on the page, the audit's too (Chromium's locale is en-US).
    await expect.poll(() => page.getByTestId('panel-audit').innerText(), { timeout: 30_000 }).toMatch(/checked \d\d:/);
    expect(await page.locator('.app').innerText()).not.toMatch(/\d (AM|PM)\b/);

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

  it('says a refused server is refused, and is not sampled, in every panel', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/t/old`);
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 60_000 }).toBe('refused');
    await expect.poll(() => page.getByTestId('target-switcher').innerText()).toContain('old (refused)');
    await expect.poll(() => page.getByTestId('panel-audit').innerText()).toMatch(/Not audited: PostgreSQL 15/);
    const text = await page.locator('.app').innerText();
    expect(text).toMatch(/Not sampled: PostgreSQL 15\.\d+ .*is not supported/);
    expect(text).not.toMatch(/Waiting for|\? effective|\? maintenance/);
    await writeFile(path.join(ARTIFACTS, 'fleet-refused.png'), await page.screenshot({ fullPage: true }));
    await context.close();
  });

  it('says an unknown server is unknown, and keeps a removed one readable as no longer watched', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/t/does-not-exist`);
    const unknown = page.getByTestId('unknown-target');
    await expect.poll(() => unknown.isVisible()).toBe(true);
    expect(await unknown.innerText()).toContain('No such server: “does-not-exist”');
    expect(await unknown.getByRole('link').allInnerTexts()).toEqual([
      'overview of all servers',
      'orders primary',
      'reports',
      'no grants',
      'old',
    ]);
    expect(new URL(page.url()).pathname).toBe('/t/does-not-exist');
    expect(await page.getByTestId('target-name').count()).toBe(0);
    await writeFile(path.join(ARTIFACTS, 'fleet-unknown.png'), await page.screenshot({ fullPage: true }));

    // Reports has been recorded for a while by now; removed from the file, its page stays.
    await writeFile(TARGETS_FILE, fleetFile(false));
    // The folder watch sees the change; SIGHUP too, should the watch be late on a busy machine.
    app.child.kill('SIGHUP');
    await page.goto(baseUrl);
    const rows = page.locator('[data-testid^="overview-row-"]');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(3);
    await page.goto(`${baseUrl}/t/reports`);
    await expect
      .poll(() => page.getByTestId('connection-state').innerText(), { timeout: 30_000 })
      .toBe('no longer watched');
    expect(await page.getByTestId('target-name').innerText()).toContain('reports');
    await expect
      .poll(() => page.getByTestId('recording-state').innerText(), { timeout: 30_000 })
      .toMatch(/no longer watched/);
    // Its recorded past is drawn: the page opened on the recorded range.
    await expect.poll(() => new URL(page.url()).search, { timeout: 30_000 }).toMatch(/from=/);
    await writeFile(path.join(ARTIFACTS, 'fleet-removed.png'), await page.screenshot({ fullPage: true }));
    await context.close();
  });
});
