import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineListSchema } from '@aioscope/spec';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import { WIDTHS_AND_THEMES } from './support/viewports.ts';
import { sideways } from './support/sideways.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-baselines');
const NAME = 'before the upgrade';

describe('baselines: mark the shown range, list it, open it, compare with it', () => {
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;
  /** Five seconds that were recorded: they ended a second ago. */
  let range = { from: 0, to: 0 };

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await rm(DATA_DIR, { recursive: true, force: true });
    app = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', DATA_DIR]);
    baseUrl = (await waitForUrl(app)).replace(/\/$/, '');
    chromium = await launchChromium();
    // Recorded for a few seconds first: the store writes every second.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const to = Date.now() - 1_000;
    range = { from: to - 5_000, to };
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
  });

  it('marks the range by keyboard, lists it, and opens it as a recording', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/t/embedded?from=${range.from}&to=${range.to}`);
    const mark = page.getByTestId('mark-baseline');
    await mark.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('baseline-name').waitFor();
    await page.keyboard.type(NAME);
    await page.keyboard.press('Enter');
    const row = page.getByTestId('baseline-row').first();
    await row.waitFor();
    expect(await row.innerText()).toContain(NAME);
    const listed = baselineListSchema.parse(await (await fetch(`${baseUrl}/api/baselines`)).json());
    expect(listed.baselines.map((b) => [b.name, b.targetId, b.from, b.to])).toEqual([
      [NAME, 'embedded', range.from, range.to],
    ]);

    await row.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(/\/t\/recording-\d+/);
    await expect
      .poll(() => page.getByTestId('connection-state').innerText(), { timeout: 30_000 })
      .toBe('recording file');
    expect(await page.getByTestId('time-range').innerText()).toContain('5 s');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Compare with this" opens the Compare view of the shown range against the baseline', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/t/embedded?from=${range.from}&to=${range.to}`);
    await page.getByTestId('show-baselines').click();
    await page.getByTestId('baseline-row').first().getByRole('button', { name: 'Compare with this' }).click();
    await page.waitForURL(/\/compare\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('aTarget')).toBe('embedded');
    expect(url.searchParams.get('bTarget')).toMatch(/^recording-\d+$/);
    expect([Number(url.searchParams.get('bFrom')), Number(url.searchParams.get('bTo'))]).toEqual([
      range.from,
      range.to,
    ]);
    await page.getByTestId('compare-sentence').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('compare-sentence').innerText()).toMatch(/^A against B: /);
    await context.close();
  });

  it.each(WIDTHS_AND_THEMES)(
    'marks and lists at %i px in the %s theme without the page scrolling sideways',
    async (width, colorScheme) => {
      const context = await chromium.browser.newContext({ viewport: { width, height: 1000 }, colorScheme });
      const page = await context.newPage();
      await page.goto(`${baseUrl}/t/embedded?from=${range.from}&to=${range.to}`);
      await page.getByTestId('mark-baseline').click();
      await page.getByTestId('baseline-name').fill(NAME);
      await page.getByTestId('baseline-save').click();
      // The same name again on the same target: refused in words.
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toContain(`already has a baseline named "${NAME}"`);
      await expect.poll(() => sideways(page, width), { message: 'the page scrolls sideways' }).toEqual([]);
      const controls = page.getByTestId('time-controls');
      const markShot = path.join(ARTIFACTS, `baseline-mark-${width}-${colorScheme}.png`);
      await controls.screenshot({ path: markShot });
      await page.keyboard.press('Escape');
      await page.getByTestId('show-baselines').click();
      await page.getByTestId('baseline-row').first().waitFor();
      await expect.poll(() => sideways(page, width), { message: 'the page scrolls sideways' }).toEqual([]);
      const listShot = path.join(ARTIFACTS, `baseline-list-${width}-${colorScheme}.png`);
      await controls.screenshot({ path: listShot });
      await context.close();
    },
  );
});
