import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
import {
  POSTGRES_17_BIN,
  startPostgresFromBinaries,
  type ThrowawayPostgres,
} from '../apps/server/test/support/debianPostgres.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';

/**
 * The dashboard of a real PostgreSQL 17 about to be upgraded: the settings audit is the
 * pre-upgrade check, with the file line and the ALTER DATABASE that will cancel 18's defaults.
 */
describe('the pre-upgrade check in the dashboard of a PostgreSQL 17', () => {
  let pg17: ThrowawayPostgres;
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    pg17 = await startPostgresFromBinaries(POSTGRES_17_BIN, 'e2e-pg17', 'effective_io_concurrency = 1\n');
    const admin = new pg.Client({ connectionString: pg17.url });
    await admin.connect();
    await admin.query('CREATE DATABASE app');
    await admin.query('ALTER DATABASE app SET maintenance_io_concurrency = 1');
    await admin.end();
    app = runCli(['--db', pg17.url, '--port', '0']);
    baseUrl = await waitForUrl(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
    await pg17?.stop();
  });

  it('lists what 18 will make of each setting, where it is set and what to do, and the banner points there', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const page = await context.newPage();
    await page.goto(baseUrl);
    const audit = page.getByTestId('panel-audit');
    const concurrency = audit.getByTestId('audit-upgrade_io_concurrency');
    await expect.poll(() => concurrency.count(), { timeout: 60_000 }).toBe(2);
    const fromFile = concurrency.filter({ hasText: 'before 18: effective_io_concurrency' });
    expect(await fromFile.getAttribute('data-level')).toBe('warn');
    expect(await fromFile.innerText()).toMatch(/configuration file \S+postgresql\.conf:\d+/);
    expect(await fromFile.innerText()).toContain('remove the line');
    const perDatabase = audit.getByTestId('audit-upgrade_role_io_concurrency');
    expect(await perDatabase.innerText()).toContain('before 18: maintenance_io_concurrency for database app');
    expect(await perDatabase.innerText()).toContain('ALTER DATABASE app RESET maintenance_io_concurrency');
    expect(await perDatabase.getAttribute('data-level')).toBe('warn');
    expect(await audit.getByTestId('audit-upgrade_io_method').innerText()).toContain('seccomp');
    expect(await audit.getByTestId('audit-aio_unavailable').count()).toBe(0);
    expect(await page.getByTestId('banner').innerText()).toContain('The settings audit says what 18 will make');
    expect(errors).toEqual([]);
    await context.close();
  });
});
