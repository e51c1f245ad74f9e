import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import type { EmbeddedPostgresServer } from '../apps/server/src/postgres/embeddedPostgres.ts';
import { runCli, waitForUrl, type CliRun } from '../apps/server/test/support/cliProcess.ts';
import { startDebianPostgres, type DebianPostgres } from '../apps/server/test/support/debianPostgres.ts';
import { waitUntil } from '../apps/server/test/support/polling.ts';
import { startTestPostgres } from '../apps/server/test/support/testPostgres.ts';
import { sideways } from './support/sideways.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';

/**
 * A phone: 420 px wide, both themes. The page never scrolls sideways (a wide table scrolls inside
 * its panel), every server of the overview is a card with "needs attention" in sight, and no
 * figure's number is on another line than its unit.
 */
const WIDTH = 420;
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-narrow');
const FLEET_DIR = path.join(REPO_ROOT, '.aioscope/e2e-narrow-fleet');
const SHOTS = path.join(REPO_ROOT, 'e2e/artifacts');
/** A small race: two variants, one cold round each of a 16 MB table. */
const SMALL_RACE = {
  tableMb: 16,
  cacheState: 'cold',
  rounds: 1,
  variants: [
    { name: 'icl=1', session: { io_combine_limit: 1 } },
    { name: 'icl=16', session: { io_combine_limit: 16 } },
  ],
};
const RACE_TIMEOUT_MS = 180_000;

/**
 * Every number + unit pair in the page's figures (panel figures, sparkline values and scales,
 * table cells, lab and race figures) that could be, or is, broken across two lines: a breakable
 * space where the element wraps, or the pair's boxes on two lines; and every figure wider than
 * its box. Run in the page (a string: e2e is typed
 * without the DOM's types).
 */
const SPLIT_FIGURES = `(() => {
  const FIGURES = '.figure-value, .spark-value, .spark-scale, td, .lab-chart-value, .race-figures dd, .race-lane-placing';
  const PAIR = /\\d[\\d,.]*([ \\u00a0\\u202f])(?:B|kB|MB|GB|TB|ms|s|min|%|Hz|blocks)(?![\\w])/g;
  const found = [];
  for (const element of document.querySelectorAll(FIGURES)) {
    // Kept on one line, a figure must still fit its box: not run into its neighbour.
    if (getComputedStyle(element).display !== 'inline' && element.scrollWidth > element.clientWidth + 1)
      found.push('"' + element.textContent + '" overflows ' + element.tagName.toLowerCase() + '.' + element.className);
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || parent.closest(FIGURES) !== element) continue;
      const wraps = !['nowrap', 'pre'].includes(getComputedStyle(parent).whiteSpace);
      for (const match of (node.textContent ?? '').matchAll(PAIR)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1 || (wraps && match[1] === ' '))
          found.push('"' + match[0] + '" in ' + element.tagName.toLowerCase() + '.' + element.className);
      }
    }
  }
  return found;
})()`;

const splitFigures = (page: Page): Promise<string[]> => page.evaluate(SPLIT_FIGURES) as Promise<string[]>;

/** Where an element ends, and whether what it holds is cut off without a way to scroll to it. */
function fitOf(page: Page, selector: string): Promise<{ right: number; clipped: boolean }> {
  return page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(element).overflowX);
    return {
      right: Math.round(element.getBoundingClientRect().right),
      clipped: element.scrollWidth > element.clientWidth + 1 && !scrolls,
    };
  })()`) as Promise<{ right: number; clipped: boolean }>;
}

async function shoot(page: Page, name: string): Promise<void> {
  await writeFile(path.join(SHOTS, `${name}.png`), await page.screenshot({ fullPage: true }));
}

describe(`a phone, ${WIDTH} px wide`, () => {
  let app: CliRun;
  let url: string;
  let fleet: CliRun;
  let fleetUrl: string;
  let watched: EmbeddedPostgresServer;
  let old: DebianPostgres;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await Promise.all([DATA_DIR, FLEET_DIR].map((dir) => rm(dir, { recursive: true, force: true })));
    await mkdir(FLEET_DIR, { recursive: true });
    await mkdir(SHOTS, { recursive: true });
    app = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', DATA_DIR]);
    [watched, old] = await Promise.all([startTestPostgres('e2e-narrow'), startDebianPostgres(15)]);
    const { port, user, password } = watched.connectionConfig;
    const passFile = path.join(FLEET_DIR, 'pgpass');
    await writeFile(passFile, `127.0.0.1:${String(port)}:*:${String(user)}:${String(password)}\n`, { mode: 0o600 });
    const server = (name: string, env: string): string =>
      `- name: ${name}\n  url: postgres://${String(user)}@127.0.0.1:${String(port)}/postgres\n  labels: { env: ${env} }`;
    const targets = path.join(FLEET_DIR, 'targets.yml');
    await writeFile(
      targets,
      [
        server('orders primary', 'prod'),
        server('reports replica with a long name', 'staging'),
        `- name: legacy\n  url: ${old.url}\n  labels: { env: prod }`,
      ].join('\n'),
    );
    fleet = runCli(['--targets', targets, '--port', '0', '--data-dir', FLEET_DIR, '--no-record'], {
      PGPASSFILE: passFile,
    });
    [url, fleetUrl] = await Promise.all([waitForUrl(app), waitForUrl(fleet)]);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    for (const run of [app, fleet]) if (run?.child.exitCode === null) run.child.kill('SIGTERM');
    await Promise.all([app?.exited, fleet?.exited]);
    await Promise.all([watched?.stop(), old?.stop()]);
  });

  it('keeps the dashboard, its lab results and the race inside the screen, figures whole', async () => {
    const started = await fetch(new URL('/api/race', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(SMALL_RACE),
    });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };
    await waitUntil(
      async () => {
        const race = (await (await fetch(new URL(`/api/race/${id}`, url))).json()) as {
          experiment: { status: string };
        };
        return race.experiment.status !== 'running';
      },
      RACE_TIMEOUT_MS,
      'the race to finish',
      1_000,
    );

    for (const theme of ['dark', 'light'] as const) {
      const context = await chromium.browser.newContext({
        viewport: { width: WIDTH, height: 900 },
        colorScheme: theme,
      });
      const errors = collectConsoleErrors(context);
      const page = await context.newPage();
      await page.goto(`${url}#race-${id}`);
      await page.getByTestId('race-medians').waitFor();
      await page.getByTestId('lab-medians').waitFor();
      // Played to the end, so the lanes show their widest figures ("124.1 kB" per read).
      await page.getByRole('button', { name: /^(play|play again)$/ }).click();
      const clock = page.getByTestId('race-clock');
      await expect
        .poll(async () => {
          const [at, of] = (await clock.innerText()).replace(/,/g, '').split(' / ');
          return at !== undefined && of !== undefined && Number(at) === Number.parseFloat(of);
        })
        .toBe(true);
      await expect.poll(() => sideways(page, WIDTH), { message: 'the page scrolls sideways' }).toEqual([]);
      for (const table of ['[data-testid=lab-medians]', '[data-testid=race-medians]']) {
        const fit = await fitOf(page, table);
        expect(fit.right, `${table} ends inside the screen`).toBeLessThanOrEqual(WIDTH);
        expect(fit.clipped, `${table} is cut off`).toBe(false);
      }
      expect(await splitFigures(page)).toEqual([]);
      await shoot(page, `narrow-dashboard-${theme}`);
      await writeFile(path.join(SHOTS, `narrow-race-${theme}.png`), await page.getByTestId('race-view').screenshot());
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('shows each server of the overview as a card, "needs attention" in sight, a refused one short', async () => {
    for (const theme of ['dark', 'light'] as const) {
      const context = await chromium.browser.newContext({
        viewport: { width: WIDTH, height: 900 },
        colorScheme: theme,
      });
      const errors = collectConsoleErrors(context);
      const page = await context.newPage();
      await page.goto(fleetUrl);
      const rows = page.locator('[data-testid^="overview-row-"]');
      await expect
        .poll(async () => (await rows.locator('.badge').allInnerTexts()).sort().join(','), { timeout: 60_000 })
        .toBe('live,live,refused');
      await expect.poll(() => sideways(page, WIDTH), { message: 'the page scrolls sideways' }).toEqual([]);
      for (const cell of await page.getByTestId('overview-attention').all()) {
        const box = await cell.boundingBox();
        expect(box, 'needs attention is laid out').not.toBeNull();
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= WIDTH, 'needs attention in sight').toBe(
          true,
        );
      }
      // A refused server has a name, a state and a reason: its card is no taller than a live one's.
      const heights =
        (await page.evaluate(`[...document.querySelectorAll('[data-testid^="overview-row-"]')].map((row) => ({
        refused: row.querySelector('.badge')?.textContent === 'refused',
        height: row.getBoundingClientRect().height,
      }))`)) as { refused: boolean; height: number }[];
      const refused = heights.find((row) => row.refused)?.height ?? Infinity;
      expect(refused).toBeLessThanOrEqual(Math.min(...heights.filter((row) => !row.refused).map((r) => r.height)));
      expect(await splitFigures(page)).toEqual([]);
      await shoot(page, `narrow-overview-${theme}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
