import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_TABLE } from '@aioscope/core';
import { historyReadersSchema, type HistoryReaders } from '@aioscope/spec';
import { aioscopeInChromium, ARTIFACTS } from './support/aioscopeInChromium.ts';
import { collectConsoleErrors } from './support/browser.ts';
import { DashboardPage } from './pages/DashboardPage.ts';
import { sideways } from './support/sideways.ts';

const DATA_TIMEOUT_MS = 120_000;
/** The demo workload's plain scan, as pg_stat_activity shows its query (its other query filters the same table). */
const DEMO_SCAN_TEXT = `SELECT count(*) FROM ${DEMO_TABLE}`;

describe('who was reading: the statements of a recorded range with a scan', () => {
  const aioscope = aioscopeInChromium(['--embedded', '--demo-table-mb', '64'], { dataDirName: 'e2e-readers' });

  async function readersOf(from: number, to: number): Promise<HistoryReaders> {
    const response = await fetch(`${aioscope.baseUrl}/api/targets/embedded/history/readers?from=${from}&to=${to}`);
    expect(response.status).toBe(200);
    return historyReadersSchema.parse(await response.json());
  }

  /** A past range (ended 5 s ago, so it no longer grows) in which the demo scan had reads in flight. */
  async function recordedScanRange(): Promise<{ from: number; to: number; answer: HistoryReaders }> {
    const deadline = Date.now() + DATA_TIMEOUT_MS;
    let last: HistoryReaders | null = null;
    while (Date.now() < deadline) {
      const to = Date.now() - 5_000;
      const from = to - 60_000;
      const answer = await readersOf(from, to);
      if (answer.rows.some((row) => row.queryText?.includes(DEMO_SCAN_TEXT) === true && (row.scanBytes ?? 0) > 0))
        return { from, to, answer };
      last = answer;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    // Once seen on a clean clone's CI (Node 24) and not since: say what the range held and what
    // aioscope printed (the demo's errors among it), so a next failure tells why.
    const rows = (last?.rows ?? []).map(
      (row) => `${JSON.stringify(row.queryText?.slice(0, 60) ?? null)} scanBytes=${String(row.scanBytes)}`,
    );
    throw new Error(
      `no demo scan was recorded in time; the last minute's readers: [${rows.join('; ')}], io worker samples ` +
        `${String(last?.ioWorkers.samples)}\naioscope's output:\n${aioscope.app.stdout().slice(-1_500)}\n${aioscope.app.stderr().slice(-1_500)}`,
    );
  }

  it('lists the demo scan with its figures, and choosing it moves the moment to its first read', async () => {
    const { from, to, answer } = await recordedScanRange();
    const scan = answer.rows.find((row) => row.queryText?.includes(DEMO_SCAN_TEXT) === true);
    expect(scan?.sampleSeconds).toBeGreaterThan(0);
    expect(scan?.scanBytes).toBeGreaterThan(0);
    expect(scan?.relations).toContain(DEMO_TABLE);
    // io workers run the reads; they are never listed as a statement.
    expect(answer.rows.flatMap((row) => row.backendTypes)).not.toContain('io worker');
    expect(answer.ioWorkers.samples).toBeGreaterThan(0);

    const context = await aioscope.chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    const { page } = dashboard;
    await page.goto(`${aioscope.baseUrl}/t/embedded?from=${from}&to=${to}`);
    const panel = page.getByTestId('panel-readers');
    const row = panel.getByTestId('reader-row').filter({ hasText: DEMO_SCAN_TEXT });
    await row.waitFor();
    expect(dashboard.momentOfUrl()).toBe(to);

    // Keyboard: the row is a button reached and pressed like any other.
    await row.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => dashboard.momentOfUrl()).toBe(Math.round(scan?.firstReadAt ?? 0));
    await expect.poll(() => row.getAttribute('aria-pressed')).toBe('true');
    await panel.getByTestId('readers-strip').waitFor();

    // Sorting by sample-seconds flips the column's order and says so to assistive technology.
    const header = panel.getByRole('columnheader', { name: /sample-seconds/ });
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    await header.getByRole('button', { name: 'sample-seconds', exact: true }).click();
    expect(await header.getAttribute('aria-sort')).toBe('ascending');

    await panel.screenshot({ path: path.join(ARTIFACTS, 'readers.png') });
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    [420, 'dark'],
    [420, 'light'],
    [1920, 'dark'],
    [1920, 'light'],
  ] as const)('reads at %i px in the %s theme without the page scrolling sideways', async (width, colorScheme) => {
    const { from, to, answer } = await recordedScanRange();
    const scan = answer.rows.find((row) => row.queryText?.includes(DEMO_SCAN_TEXT) === true);
    const context = await aioscope.chromium.browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    const page = await context.newPage();
    await page.goto(`${aioscope.baseUrl}/t/embedded?from=${from}&to=${to}`);
    const panel = page.getByTestId('panel-readers');
    await panel.getByTestId('reader-row').filter({ hasText: DEMO_SCAN_TEXT }).click();
    await expect
      .poll(() => new URL(page.url()).searchParams.get('at'))
      .toBe(String(Math.round(scan?.firstReadAt ?? 0)));
    await panel.getByTestId('readers-strip').waitFor();
    // On a phone each statement is a card: neither the page nor the statements' box scrolls sideways.
    await expect.poll(() => sideways(page, width), { message: 'the page scrolls sideways' }).toEqual([]);
    const boxOverflow =
      "(box => box.scrollWidth - box.clientWidth)(document.querySelector('[data-testid=panel-readers] .table-wrap'))";
    expect(await page.evaluate(boxOverflow)).toBeLessThanOrEqual(0);
    await panel.screenshot({ path: path.join(ARTIFACTS, `readers-${width}-${colorScheme}.png`) });
    await context.close();
  });

  it('asks for 15 minutes or less on a longer range', async () => {
    const to = Date.now();
    const context = await aioscope.chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${aioscope.baseUrl}/t/embedded?from=${to - 3_600_000}&to=${to}`);
    await expect
      .poll(() => page.getByTestId('panel-readers').innerText(), { timeout: 30_000 })
      .toContain('choose 15 minutes or less');
    await context.close();
  });
});
