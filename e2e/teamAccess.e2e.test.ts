import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { startAuthProxyNginx, type RunningNginx } from '../apps/server/test/support/nginx.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { LabPanelPage } from './pages/LabPanelPage.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-team');
const HEADER = 'X-Forwarded-User';
/** The SSO session's stand-in: the proxy names the user this cookie holds. */
const SESSION_COOKIE = 'e2e_user';

describe('team access in Chromium, behind an auth proxy that names the user', () => {
  let app: CliRun;
  let proxy: RunningNginx;
  let base: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
    await mkdir(ARTIFACTS, { recursive: true });
    // The browser talks to nginx, which stands for the SSO proxy and sets the header on every
    // request, the socket's handshake included (a browser sends none of its own on a WebSocket's).
    app = runCli([
      '--embedded',
      '--no-demo',
      '--no-record',
      '--port',
      '0',
      '--data-dir',
      DATA_DIR,
      '--auth-proxy-header',
      HEADER,
      '--trusted-proxy',
      '127.0.0.1/32',
      '--operators',
      'alice',
    ]);
    proxy = await startAuthProxyNginx(Number(new URL(await waitForUrl(app)).port), HEADER, SESSION_COOKIE);
    base = proxy.url;
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await proxy?.stop();
    if (app?.child.exitCode === null) app.child.kill('SIGTERM');
    await app?.exited;
  });

  /** A browser signed in as `user`: the proxy names them on every request (page, REST, the socket's upgrade). */
  async function openAs(
    user: string,
    width = 1440,
  ): Promise<{ context: BrowserContext; lab: LabPanelPage; errors: string[] }> {
    const context = await chromium.browser.newContext({
      viewport: { width, height: 1000 },
      // Dark first, as the page opens for most (the theme follows the system until toggled).
      colorScheme: 'dark',
    });
    await context.addCookies([{ name: SESSION_COOKIE, value: user, url: base }]);
    const errors = collectConsoleErrors(context);
    const lab = new LabPanelPage(await context.newPage());
    await lab.open(base);
    return { context, lab, errors };
  }

  it('shows a viewer their name, and the lab and race starts disabled with the reason in words', async () => {
    const { context, lab, errors } = await openAs('bob');
    const badge = lab.page.getByTestId('user-name');
    await badge.waitFor();
    expect(await badge.innerText()).toBe('bob · viewer');
    // Live through the socket: its handshake carried the header too.
    await lab.page
      .getByTestId('connection-state')
      .filter({ hasText: /^live$/ })
      .waitFor({ timeout: 30_000 });

    const reason = lab.panel.getByTestId('lab-operator-only');
    await reason.waitFor();
    expect(await reason.innerText()).toMatch(
      /^Needs the operator role: starting or cancelling lab runs and races .*bob is a viewer/,
    );
    expect(await lab.runButton().isDisabled()).toBe(true);
    expect(await lab.panel.getByRole('button', { name: 'Show read combining' }).isDisabled()).toBe(true);
    expect(await lab.panel.getByRole('button', { name: 'run as race' }).isDisabled()).toBe(true);
    // The disabled start says why to a screen reader as well: its description is the reason.
    const describedBy = await lab.runButton().getAttribute('aria-describedby');
    expect(describedBy).not.toBeNull();
    expect(await lab.page.locator(`[id="${describedBy ?? ''}"]`).innerText()).toBe(await reason.innerText());
    await lab.panel.screenshot({ path: path.join(ARTIFACTS, 'auth-lab-viewer.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows an operator their name and the lab ready to start', async () => {
    const { context, lab, errors } = await openAs('alice');
    await lab.page.getByTestId('user-name').filter({ hasText: 'alice · operator' }).waitFor();
    await lab.runButton().waitFor();
    expect(await lab.runButton().isEnabled()).toBe(true);
    expect(await lab.panel.getByTestId('lab-operator-only').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is live over plain HTTP at a team host name, not only on loopback', async () => {
    // A browser treats only loopback as secure: elsewhere a policy upgrading http to https (or
    // HSTS) leaves the page blank behind a team's http proxy. The name resolves to this machine.
    const named = await launchChromium(['--host-resolver-rules=MAP aioscope.test 127.0.0.1']);
    try {
      const url = `http://aioscope.test:${new URL(base).port}/`;
      const context = await named.browser.newContext();
      await context.addCookies([{ name: SESSION_COOKIE, value: 'bob', url }]);
      const errors = collectConsoleErrors(context);
      const page = await context.newPage();
      const response = await page.goto(url);
      expect(response?.headers()['strict-transport-security']).toBeUndefined();
      await page.getByTestId('user-name').filter({ hasText: 'bob · viewer' }).waitFor({ timeout: 30_000 });
      await page
        .getByTestId('connection-state')
        .filter({ hasText: /^live$/ })
        .waitFor({ timeout: 30_000 });
      // Chromium says it ignores Cross-Origin-Opener-Policy on an origin that is not secure; it is
      // kept for where it holds (loopback, https through the team's proxy).
      expect(errors.filter((error) => !/^The Cross-Origin-Opener-Policy header has been ignored/.test(error))).toEqual(
        [],
      );
      await context.close();
    } finally {
      await named.close();
    }
  });

  it('draws the header with the user name at 420 and 1920 px, dark and light', async () => {
    for (const width of [420, 1920]) {
      const { context, lab } = await openAs('dana.lee@example.com', width);
      const header = lab.page.locator('header.app-header');
      await lab.page.getByTestId('user-name').waitFor();
      await lab.page
        .getByTestId('connection-state')
        .filter({ hasText: /^live$/ })
        .waitFor({ timeout: 30_000 });
      for (const theme of ['dark', 'light']) {
        await header.screenshot({ path: path.join(ARTIFACTS, `auth-header-${width}-${theme}.png`) });
        const box = await lab.page.getByTestId('user-name').boundingBox();
        // On the page, not pushed off its right edge.
        expect(box !== null && box.x >= 0 && box.x + box.width <= width).toBe(true);
        if (theme === 'dark') await lab.page.getByRole('button', { name: 'light theme' }).click();
      }
      await context.close();
    }
  });
});
