import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { freePort } from '../apps/server/test/support/testPostgres.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { DashboardPage } from './pages/DashboardPage.ts';

const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-reconnect');
/** A bound for the wait, not a measured claim: the time it took is printed. */
const LIVE_AGAIN_TIMEOUT_MS = 15_000;

/**
 * Console messages Chromium prints by itself while the server is down, expected here: refused
 * connections, and the 503 Fastify answers to a request that arrives while it closes. Answers
 * after the new process is up are checked one by one (failedAfterUp).
 */
const WHILE_DOWN = /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|status of 503 \(Service Unavailable\)/;

describe('a page open while aioscope restarts', () => {
  let chromium: LaunchedBrowser;
  let app: CliRun | undefined;
  let port: number;

  const start = (): CliRun => runCli(['--embedded', '--no-demo', '--port', String(port), '--data-dir', DATA_DIR]);

  beforeAll(async () => {
    port = await freePort();
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
  });

  it('comes back live by itself once the new process is up', async () => {
    app = start();
    const url = await waitForUrl(app);
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const consoleErrors = collectConsoleErrors(context);
    let upAt: number | null = null;
    const failedAfterUp: string[] = [];
    context.on('response', (response) => {
      if (upAt !== null && response.status() >= 400) failedAfterUp.push(`${response.status()} ${response.url()}`);
    });
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(url);
    await dashboard.waitUntil('live', async () => (await dashboard.connectionState()) === 'live', 60_000);

    app.child.kill('SIGTERM');
    const stopped = app;
    expect(await stopped.exited, `exit code on SIGTERM; stderr:\n${stopped.stderr()}`).toBe(0);
    await dashboard.waitUntil(
      'the page to notice aioscope is gone',
      async () => (await dashboard.connectionState()).includes('unreachable'),
      10_000,
    );

    app = start();
    await waitForUrl(app);
    upAt = Date.now();
    const up = upAt;
    await dashboard.waitUntil(
      'live again',
      async () => (await dashboard.connectionState()) === 'live',
      LIVE_AGAIN_TIMEOUT_MS,
    );
    console.info(`reconnect: live again ${Date.now() - up} ms after the new process printed its URL`);
    // The panels that read over REST (the audit, the histogram's chunk) come back without an error.
    await dashboard.waitUntil(
      'the audit read again',
      async () => (await dashboard.page.getByTestId('panel-audit').locator('table.audit').count()) > 0,
      LIVE_AGAIN_TIMEOUT_MS,
    );
    expect(failedAfterUp).toEqual([]);
    expect(consoleErrors.filter((message) => !WHILE_DOWN.test(message))).toEqual([]);
    await context.close();
  });
});
