import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_TABLE } from '@aioscope/core';
import { compareResultSchema, type CompareResult } from '@aioscope/spec';
import { aioscopeInChromium, ARTIFACTS } from './support/aioscopeInChromium.ts';
import { describeViolations, installAxe, seriousViolations } from './support/axe.ts';
import { collectConsoleErrors } from './support/browser.ts';
import { sideways } from './support/sideways.ts';

const DATA_TIMEOUT_MS = 180_000;
/** Long enough to hold the end of a demo scan (pg_stat_io counts a statement's reads when it ends). */
const SIDE_MS = 60_000;

interface Ranges {
  a: { from: number; to: number };
  b: { from: number; to: number };
  answer: CompareResult;
}

/** The demo scan is on the side's scan map and pg_stat_io counted enough reads for a read size. */
const scanned = (side: CompareResult['a']): boolean =>
  side.scans?.some((scan) => scan.relation === DEMO_TABLE && scan.bytes > 0) === true &&
  side.figures.bytesPerRead?.value !== null;

describe('compare: two recorded ranges with scans, side by side', () => {
  const aioscope = aioscopeInChromium(['--embedded', '--demo-table-mb', '64'], { dataDirName: 'e2e-compare' });
  let ranges: Ranges | undefined;

  /** Two adjacent 60 s ranges (ended 5 s ago, so they no longer grow) in which the demo workload scanned. */
  async function rangesWithScans(): Promise<Ranges> {
    if (ranges !== undefined) return ranges;
    const deadline = Date.now() + DATA_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const to = Date.now() - 5_000;
      const a = { from: to - SIDE_MS, to };
      const b = { from: to - 2 * SIDE_MS, to: to - SIDE_MS };
      const query = `aTarget=embedded&aFrom=${a.from}&aTo=${a.to}&bTarget=embedded&bFrom=${b.from}&bTo=${b.to}`;
      const response = await fetch(`${aioscope.baseUrl}/api/compare?${query}`);
      expect(response.status).toBe(200);
      const answer = compareResultSchema.parse(await response.json());
      if (scanned(answer.a) && scanned(answer.b)) return (ranges = { a, b, answer });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
    throw new Error('no two adjacent ranges with demo scans were recorded in time');
  }

  it('opens from the time bar by keyboard and reads the sentence the API gives for both ranges', async () => {
    const { a, answer } = await rangesWithScans();
    expect(answer.a.figures.bytesPerRead?.value).toBeGreaterThan(8192);
    const context = await aioscope.chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors = collectConsoleErrors(context);
    const page = await context.newPage();
    await page.goto(`${aioscope.baseUrl}/t/embedded?from=${a.from}&to=${a.to}`);
    const link = page.getByTestId('open-compare');
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/compare\?/);
    const sentence = page.getByTestId('compare-sentence');
    await sentence.waitFor();
    expect(await sentence.innerText()).toBe(`A against B: ${answer.sentence}`);
    // B is the same length just before A: the ranges asked for above.
    const url = new URL(page.url());
    expect(Number(url.searchParams.get('bTo'))).toBe(a.from);
    expect(await page.getByTestId('compare-figure-bytesPerRead').innerText()).toContain('kB');
    expect(await page.getByTestId('compare-scans-A').innerText()).toContain(DEMO_TABLE);
    expect(await page.getByTestId('compare-scans-B').innerText()).toContain(DEMO_TABLE);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    [420, 'dark'],
    [420, 'light'],
    [1920, 'dark'],
    [1920, 'light'],
  ] as const)(
    'reads at %i px in the %s theme without the page scrolling sideways, keyboard focus visible, no axe violation',
    async (width, colorScheme) => {
      const { a, b } = await rangesWithScans();
      const context = await aioscope.chromium.browser.newContext({ viewport: { width, height: 1000 }, colorScheme });
      await installAxe(context);
      const page = await context.newPage();
      const query = `aTarget=embedded&aFrom=${a.from}&aTo=${a.to}&bTarget=embedded&bFrom=${b.from}&bTo=${b.to}`;
      await page.goto(`${aioscope.baseUrl}/compare?${query}`);
      await page.getByTestId('compare-sentence').waitFor();
      await page.getByTestId('compare-scans-B').waitFor();
      await expect.poll(() => sideways(page, width), { message: 'the page scrolls sideways' }).toEqual([]);
      // Keyboard: the first control of the view takes focus with a visible outline.
      await page.getByTestId('compare-b-target').focus();
      const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).not.toBe('none');
      // axe's rules, contrast of every text against what it is drawn on (4.5:1) included.
      const violations = await seriousViolations(page);
      expect(violations, describeViolations(violations)).toEqual([]);
      await page.screenshot({ path: path.join(ARTIFACTS, `compare-${width}-${colorScheme}.png`), fullPage: true });
      await context.close();
    },
  );
});
