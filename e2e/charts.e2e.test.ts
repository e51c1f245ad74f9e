import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../apps/server/test/support/cliProcess.ts';
import { collectConsoleErrors, launchChromium, type LaunchedBrowser } from './support/browser.ts';
import {
  axisPixelsNear,
  chartBoxes,
  inkInCapture,
  nextAnimationFrame,
  resolvedColor,
  shownCanvasDesynchronized,
  shownPixelsNear,
} from './support/chartPixels.ts';
import { DashboardPage } from './pages/DashboardPage.ts';

const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');
const DATA_DIR = path.join(REPO_ROOT, '.aioscope/e2e-charts');
const VIEWPORT = { width: 1280, height: 900 };
const DATA_TIMEOUT_MS = 90_000;

describe('captures and a theme switch show every chart drawn, below the fold too', () => {
  let app: CliRun;
  let baseUrl: string;
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    app = runCli(['--embedded', '--port', '0', '--data-dir', DATA_DIR, '--demo-table-mb', '256']);
    baseUrl = await waitForUrl(app);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
  });

  /** The dashboard once the demo's reads have reached the charts below the fold. */
  async function openWithData(theme: 'dark' | 'light'): Promise<{ dashboard: DashboardPage; errors: string[] }> {
    const context = await chromium.browser.newContext({ viewport: VIEWPORT, colorScheme: theme });
    const errors = collectConsoleErrors(context);
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);
    const { page } = dashboard;
    await dashboard.waitUntil(
      'reads seen and processes waiting on I/O',
      async () =>
        Number(await page.getByTestId('reads-seen').innerText()) > 0 &&
        (await page.getByTestId('panel-waits').locator('.chart-plot').count()) > 0,
      DATA_TIMEOUT_MS,
    );
    // The histogram takes new bins once a second (ReadCombiningPanel): wait for its bars drawn.
    const barColor = await resolvedColor(page, 'var(--series-2)');
    await dashboard.waitUntil(
      'histogram bars',
      async () => (await shownPixelsNear(page, 'histogram', barColor)) > 50,
      DATA_TIMEOUT_MS,
    );
    return { dashboard, errors };
  }

  it('a full-page screenshot shows each chart below the fold drawn, the histogram with its bars', async () => {
    const { dashboard, errors } = await openWithData('dark');
    const { page } = dashboard;
    // What a person's full-size capture does: the page as it is, the viewport left as it was.
    const png = await page.screenshot({ fullPage: true });
    await writeFile(path.join(ARTIFACTS, 'charts-full-page-dark.png'), png);

    const below = (await chartBoxes(page)).filter((box) => box.y >= VIEWPORT.height);
    expect(below.map((box) => box.label)).toEqual(
      expect.arrayContaining([
        'AIO-related wait events over the last 60 seconds',
        expect.stringMatching(/^histogram of blocks per read/),
      ]),
    );
    const background = await resolvedColor(page, 'var(--panel)');
    const bars = await resolvedColor(page, 'var(--series-2)');
    const seen = await inkInCapture(page, png, below, { background, mark: bars });
    below.forEach((box, index) => {
      const { ink, marked, area } = seen[index] ?? { ink: 0, marked: 0, area: 1 };
      // Axes, grid and series: a drawn chart inks a few % of its box; a skipped one is blank.
      expect(ink / area, `${box.label}: share of its box drawn in the capture`).toBeGreaterThan(0.01);
      if (box.kind === 'histogram') expect(marked, `${box.label}: bar pixels in the capture`).toBeGreaterThan(50);
    });
    // ...although every live chart shows a desynchronized canvas, drawn outside the page's frames
    // (layeredPlot.ts): the capture above is what proves such a canvas is seen.
    const shown = await shownCanvasDesynchronized(page);
    expect(shown.length).toBeGreaterThanOrEqual(6);
    expect(shown.filter((chart) => chart.desynchronized !== true)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('draws the histogram even when its chunk fails to load at first, as while aioscope restarts', async () => {
    const context = await chromium.browser.newContext({ viewport: VIEWPORT });
    let refused = 0;
    // The first two fetches of the histogram's chunk fail as they do while the server is down
    // (the browser keeps a failed import: the retries ask for it under URLs of their own, ?retry=N).
    await context.route('**/assets/StaticCharts-*.js*', async (route) => {
      if (refused < 2) {
        refused += 1;
        await route.abort('connectionrefused');
      } else await route.continue();
    });
    const dashboard = new DashboardPage(await context.newPage());
    await dashboard.open(baseUrl);
    const { page } = dashboard;
    const barColor = await resolvedColor(page, 'var(--series-2)');
    await dashboard.waitUntil(
      'histogram bars',
      async () => (await shownPixelsNear(page, 'histogram', barColor)) > 0,
      DATA_TIMEOUT_MS,
    );
    expect(refused).toBe(2);
    expect(await page.getByRole('alert').filter({ hasText: 'could not be loaded' }).count()).toBe(0);
    expect(await dashboard.connectionState()).toBe('live');
    await context.close();
  });

  it('a theme switch redraws a chart below the fold in the new theme at once', async () => {
    const { dashboard, errors } = await openWithData('dark');
    const { page } = dashboard;
    const chart = 'AIO-related wait events over the last 60 seconds';
    const top = (await chartBoxes(page)).find((box) => box.label === chart)?.y ?? 0;
    expect(top).toBeGreaterThan(VIEWPORT.height + 200); // out of view, beyond the drawing margin
    const darkMuted = await resolvedColor(page, 'var(--muted)');
    expect(await axisPixelsNear(page, chart, darkMuted)).toBeGreaterThan(0);

    await dashboard.toggleTheme();
    // The next animation frame: long before the chart's next scheduled redraw.
    await nextAnimationFrame(page);
    const lightMuted = await resolvedColor(page, 'var(--muted)');
    expect(lightMuted).not.toEqual(darkMuted);
    expect(await axisPixelsNear(page, chart, lightMuted)).toBeGreaterThan(0);
    expect(await axisPixelsNear(page, chart, darkMuted)).toBe(0);
    expect(Number(await page.evaluate('window.scrollY'))).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
