import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import type { EmbeddedPostgresServer } from '../apps/server/src/postgres/embeddedPostgres.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { startTestPostgres } from '../apps/server/test/support/testPostgres.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { LabPanelPage } from './pages/LabPanelPage.ts';

const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-lab');
const EXPERIMENT_TIMEOUT_MS = 120_000;

describe('scan lab in Chromium', () => {
  let embeddedApp: CliRun;
  let embeddedUrl: string;
  let userServer: EmbeddedPostgresServer;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
    embeddedApp = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', DATA_DIR]);
    // A PostgreSQL that stands for a user's server, watched with --db.
    userServer = await startTestPostgres('e2e-lab-user');
    embeddedUrl = await waitForUrl(embeddedApp);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    if (embeddedApp?.child.exitCode === null) embeddedApp.child.kill('SIGTERM');
    await embeddedApp?.exited;
    await userServer?.stop();
  });

  function userServerUrl(): string {
    const config = userServer.connectionConfig;
    return `postgres://${config.user ?? ''}:${String(config.password ?? '')}@${config.host ?? ''}:${config.port ?? 0}/${config.database ?? ''}`;
  }

  async function newLabPage(baseUrl: string) {
    const context = await chromium.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const consoleErrors = collectConsoleErrors(context);
    const lab = new LabPanelPage(await context.newPage());
    await lab.open(baseUrl);
    return { context, consoleErrors, lab };
  }

  it('checks the form as it is typed: combined variants, blank numbers, typos, one error at a time', async () => {
    const { context, consoleErrors, lab } = await newLabPage(embeddedUrl);
    await lab.runButton().waitFor();

    await lab.field('variants').fill('eic=16,icl=1;icl=16');
    expect(await lab.formErrors()).toEqual([]);
    expect(await lab.runButton().isEnabled()).toBe(true);

    await lab.field('variants').fill('eic=abc');
    expect(await lab.formErrors()).toEqual(['eic=abc: effective_io_concurrency takes a whole number from 0 to 1000']);
    expect(await lab.runButton().isDisabled()).toBe(true);

    await lab.field('variants').fill('work_mem=1');
    expect(await lab.formErrors()).toEqual([expect.stringMatching(/^unknown setting "work_mem=1"/)]);

    await lab.field('variants').fill('icl=1');
    await lab.field('rounds').fill('');
    expect(await lab.field('rounds').inputValue()).toBe('');
    expect(await lab.formErrors()).toEqual(['rounds: enter a whole number from 1 to 20']);
    await lab.field('rounds').pressSequentially('3');
    expect(await lab.field('rounds').inputValue()).toBe('3');
    expect(await lab.formErrors()).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('cancels a running experiment from the keyboard, shows "cancelled", and keeps it across a reload', async () => {
    const { context, consoleErrors, lab } = await newLabPage(embeddedUrl);
    await lab.fill({ variants: 'icl=1,eic=0', rounds: '20', tableMb: '256', cache: 'cold' });
    await lab.runButton().click();
    await lab.cancelButton().waitFor({ timeout: EXPERIMENT_TIMEOUT_MS });
    // The page says, at the top, that an experiment holds the lab.
    await lab.page.getByTestId('lab-activity-banner').waitFor();
    expect(await lab.page.getByTestId('lab-activity-banner').innerText()).toMatch(/Scan-lab experiment \w+ is running/);

    // Keyboard only: from the link before it, Tab reaches Cancel, which shows where focus is; Enter presses it.
    await lab.panel.getByRole('link', { name: /watch it live/ }).focus();
    await lab.page.keyboard.press('Tab');
    // Evaluated as text: the e2e project is typed for Node, without the DOM's types.
    expect(await lab.page.evaluate('document.activeElement?.textContent')).toBe('cancel experiment');
    expect(
      await lab.page.evaluate(
        '(() => { const style = getComputedStyle(document.activeElement); return `${style.outlineStyle} ${style.outlineWidth}`; })()',
      ),
    ).toBe('solid 2px');
    await lab.page.keyboard.press('Enter');

    await lab.waitForStatus(/: cancelled/, 10_000);
    expect(await lab.panel.innerText()).toMatch(/cancelled on request/);
    expect(await lab.cancelButton().count()).toBe(0);
    await lab.page.getByTestId('lab-activity-banner').waitFor({ state: 'detached', timeout: 10_000 });

    await lab.page.reload();
    await lab.waitForStatus(/: cancelled/, 10_000);
    expect(await lab.panel.getByRole('button', { name: /20 rounds · cancelled/ }).count()).toBe(1);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('shows the result after a reload and says "1 round"', async () => {
    const { context, consoleErrors, lab } = await newLabPage(embeddedUrl);
    await lab.fill({ variants: 'icl=1;eic=16,icl=16', rounds: '1', tableMb: '16', cache: 'shared-buffers-cold' });
    await lab.runButton().click();
    await lab.waitForStatus(/: done/, EXPERIMENT_TIMEOUT_MS);
    await lab.page.reload();
    await lab.waitForStatus(/: done/, 10_000);
    const medians = await lab.panel.getByTestId('lab-medians').innerText();
    expect(medians).toMatch(/eic=16,icl=16\s+1\s+[\d.]+ ms/);
    // PostgreSQL 18's EXPLAIN has no IO option: the results say so, with no figure.
    expect(await lab.panel.getByTestId('explain-io-message').innerText()).toBe(
      'PostgreSQL 18 does not report per-node I/O figures; EXPLAIN IO is new in 19.',
    );
    // The list of experiments is a query of its own, which may answer after the current one.
    await expect.poll(() => lab.panel.getByRole('button', { name: /· 1 round · done/ }).count()).toBe(1);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('says the lab is off on a user server without --allow-lab, instead of showing a form that fails', async () => {
    const app = runCli(['--db', userServerUrl(), '--port', '0']);
    try {
      const { context, consoleErrors, lab } = await newLabPage(await waitForUrl(app));
      await lab.panel.getByText(/The scan lab is off for .*Start aioscope with --allow-lab to allow it\./).waitFor();
      expect(await lab.runButton().count()).toBe(0);
      expect(await lab.field('variants').count()).toBe(0);
      expect(consoleErrors).toEqual([]);
      await context.close();
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  });

  it("drops the server's answer to the last submit once the form changes", async () => {
    const app = runCli(['--db', userServerUrl(), '--port', '0', '--allow-lab']);
    try {
      const { context, consoleErrors, lab } = await newLabPage(await waitForUrl(app));
      await lab.fill({ variants: 'icl=1', rounds: '1', tableMb: '16' });
      await lab.field("type the server's name to confirm").fill('not the name');
      await lab.runButton().click();
      await lab.panel.getByText(/confirm by sending confirmTarget/).waitFor();
      expect(await lab.formErrors()).toEqual([expect.stringMatching(/^confirm by sending confirmTarget = "/)]);
      await lab.field('variants').fill('eic=abc');
      expect(await lab.formErrors()).toEqual(['eic=abc: effective_io_concurrency takes a whole number from 0 to 1000']);
      expect(consoleErrors.filter((error) => !/400 \(Bad Request\)/.test(error))).toEqual([]);
      await context.close();
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  });
});
