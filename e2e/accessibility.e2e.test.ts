import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
import { describeViolations, installAxe, seriousViolations } from './support/axe.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { DashboardPage, type FocusedElement } from './pages/DashboardPage.ts';

const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-accessibility');
const LIVE_TIMEOUT_MS = 90_000;
/** Enough Tab presses to cross the header, the live panels and the scan map; a bound, not a claim. */
const MAX_TABS = 200;

describe('usable by keyboard, screen reader and narrow screen (embedded PostgreSQL 18, demo workload)', () => {
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    app = runCli(['--embedded', '--port', '0', '--data-dir', DATA_DIR, '--demo-table-mb', '64']);
    baseUrl = await waitForUrl(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await chromium?.close();
    await stopCli(app);
  });

  /** A page showing live data: reads in flight seen and a client backend in the processes table. */
  async function openLive(width: number, options: { axe?: boolean } = {}): Promise<DashboardPage> {
    const context = await chromium.browser.newContext({ viewport: { width, height: 1000 }, colorScheme: 'dark' });
    contexts.push(context);
    if (options.axe === true) await installAxe(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);
    await dashboard.waitUntil(
      'reads in flight',
      async () => ((await dashboard.inflightPeak()) ?? 0) > 0,
      LIVE_TIMEOUT_MS,
    );
    await dashboard.waitForProcessRow('client backend', LIVE_TIMEOUT_MS);
    return dashboard;
  }

  it('has no serious or critical axe violation, in dark and in light', async () => {
    const dashboard = await openLive(1440, { axe: true });
    const consoleErrors = collectConsoleErrors(dashboard.page.context());
    // The whole page laid out, so axe measures the contrast of every section, not only the first screen.
    await dashboard.growViewportToPage();
    const found: Record<string, string> = {};
    for (const theme of ['dark', 'light']) {
      const violations = await seriousViolations(dashboard.page);
      if (violations.length > 0) console.error(`axe, ${theme} theme:\n${describeViolations(violations)}`);
      found[theme] = violations.map((violation) => violation.id).join(', ');
      if (theme === 'dark') {
        await dashboard.toggleTheme();
        expect(await dashboard.page.getAttribute('html', 'data-theme')).toBe('light');
      }
    }
    expect(found).toEqual({ dark: '', light: '' });
    expect(consoleErrors).toEqual([]);
  });

  it('can be walked by keyboard alone: skip link first, then the theme toggle, then a pid, each visibly focused', async () => {
    const dashboard = await openLive(1440);
    const page = dashboard.page;

    await page.keyboard.press('Tab');
    const first = await dashboard.focused();
    expect(first).toEqual({ kind: 'a', name: 'Skip to live panels', indicator: true });

    const walked: FocusedElement[] = [];
    const tabUntil = async (kind: string, name: RegExp): Promise<FocusedElement> => {
      for (let presses = 0; presses < MAX_TABS; presses++) {
        await page.keyboard.press('Tab');
        const focused = await dashboard.focused();
        // A row or scan that leaves the page while focused hands focus to the body for a moment.
        if (focused.kind === 'none') continue;
        walked.push(focused);
        if (focused.kind === kind && name.test(focused.name)) return focused;
      }
      throw new Error(`no ${kind} "${name.source}" after ${MAX_TABS} Tab presses; walked: ${JSON.stringify(walked)}`);
    };
    await tabUntil('button', /^(light|dark) theme$/);
    await tabUntil('pid', /^\d+$/);
    expect(walked.filter((element) => !element.indicator)).toEqual([]);

    // The skip link does what it says: the next Tab after it lands inside the live panels.
    await dashboard.skipLink().focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('live');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.getElementById("live").contains(document.activeElement)')).toBe(true);
  });

  it('does not scroll sideways at 420 px, and the settings audit keeps readable columns', async () => {
    const dashboard = await openLive(420);
    await dashboard.page.getByTestId('audit-io_method').waitFor();
    await dashboard.growViewportToPage();
    expect(await dashboard.documentScrollWidth()).toBeLessThanOrEqual(420);
    const audit = await dashboard.auditWhyWidths();
    expect(audit.why.length).toBeGreaterThan(0);
    // Each "why" gets most of the panel's width (a stacked line), not a column of a few letters.
    for (const width of audit.why) expect(width).toBeGreaterThan(audit.panel / 2);

    // An explanation opened near the right edge stays on screen and does not widen the page.
    const explanation = await dashboard.openExplanation('sample rates');
    expect(explanation.left).toBeGreaterThanOrEqual(0);
    expect(explanation.right).toBeLessThanOrEqual(420);
    expect(await dashboard.documentScrollWidth()).toBeLessThanOrEqual(420);
  });

  it('shows every explanation whole, also where it reaches over the panel below its own', async () => {
    const dashboard = await openLive(1440);
    const explanations = await dashboard.explanationsOutsideTheirPanel();
    expect(explanations.opened).toBeGreaterThan(10);
    // Some do reach outside (else this would prove nothing), and none of those is covered there.
    expect(explanations.outside).toBeGreaterThan(0);
    expect(explanations.covered).toEqual([]);
  });

  it('shows the processes table whole at 1440 px: its last column inside the panel', async () => {
    const dashboard = await openLive(1440);
    const edge = await dashboard.processesLastColumnEdge();
    expect(edge.headerRight).toBeLessThanOrEqual(edge.visibleRight + 0.5);
  });
});
