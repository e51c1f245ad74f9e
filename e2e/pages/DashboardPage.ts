import type { Page } from 'playwright-core';

const UNIT_BYTES: Record<string, number> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** Parses a figure as the UI prints it: "126.2 kB", "12 %", "7"; null for "–" or words. */
export function parseFigure(text: string): number | null {
  const match = /^(-?\d+(?:\.\d+)?)\s*(B|kB|MB|GB|%)?$/.exec(text.trim());
  if (match === null) return null;
  const value = Number(match[1]);
  const unit = match[2];
  if (unit === '%') return value / 100;
  return unit === undefined ? value : value * (UNIT_BYTES[unit] ?? 1);
}

/** The dashboard as a user sees it: figures by what they mean, not by markup. */
export class DashboardPage {
  constructor(readonly page: Page) {}

  async open(baseUrl: string): Promise<void> {
    await this.page.goto(baseUrl);
    await this.page.getByRole('heading', { name: 'Reads in flight' }).waitFor();
  }

  private async figure(testId: string): Promise<number | null> {
    const locator = this.page.getByTestId(testId);
    if ((await locator.count()) === 0) return null;
    return parseFigure(await locator.innerText());
  }

  /** The per-sample strip's newest drawn frame time and its number of samples (data attributes). */
  async sampleStrip(): Promise<{ newestT: number; samples: number }> {
    const strip = this.page.getByTestId('sample-strip');
    return {
      newestT: Number(await strip.getAttribute('data-newest-t')),
      samples: Number(await strip.getAttribute('data-samples')),
    };
  }

  inflightPeak(): Promise<number | null> {
    return this.figure('inflight-peak');
  }

  bytesPerReadLive(): Promise<number | null> {
    return this.figure('bytes-per-read-live');
  }

  bytesPerReadExact(): Promise<number | null> {
    return this.figure('bytes-per-read-exact');
  }

  workerBusyFraction(): Promise<number | null> {
    return this.figure('worker-busy-fraction');
  }

  connectionState(): Promise<string> {
    return this.page.getByTestId('connection-state').innerText();
  }

  /** Selects the first client backend in the processes table and returns its pid. */
  selectClientBackend(): Promise<number> {
    return this.selectProcessOfType('client backend');
  }

  /** Selects the first process of a backend type in the processes table and returns its pid. */
  async selectProcessOfType(backendType: string): Promise<number> {
    const row = this.page.locator('[data-testid^="process-row-"]', { hasText: backendType }).first();
    await row.waitFor();
    const testId = (await row.getAttribute('data-testid')) ?? '';
    // Click that pid's row, not "the first client backend" again: the table re-sorts twice a
    // second (busiest first), and a re-resolved locator may land on another process.
    await this.page.getByTestId(testId).click();
    return Number(testId.replace('process-row-', ''));
  }

  processDetailTitle(): Promise<string> {
    return this.page.getByTestId('panel-process-detail').getByRole('heading').innerText();
  }

  processQuery(): Promise<string> {
    return this.page.getByTestId('process-query').innerText();
  }

  /** Waits until a scan still reading is between `from` and `to` of its relation, for a screenshot mid-scan. */
  async waitForScanBetween(from: number, to: number, timeoutMs: number): Promise<void> {
    await this.waitUntil(
      `a scan between ${from * 100} % and ${to * 100} %`,
      async () => {
        for (const text of await this.page
          .locator('.scan-button:not(.ended) [data-testid="scan-progress"]')
          .allInnerTexts()) {
          const progress = parseFigure(text);
          if (progress !== null && progress >= from && progress <= to) return true;
        }
        return false;
      },
      timeoutMs,
    );
  }

  scanMap() {
    return this.page.getByTestId('panel-scan-map');
  }

  labPanel() {
    return this.page.getByTestId('panel-lab');
  }

  /** Fills the lab form and starts an experiment, as a user would. */
  async startExperiment(options: { variants: string; rounds: number; tableMb: number }): Promise<void> {
    const lab = this.labPanel();
    await lab.getByLabel('variants').fill(options.variants);
    await lab.getByLabel('rounds').fill(String(options.rounds));
    await lab.getByLabel('table size in MB').fill(String(options.tableMb));
    // The panel may still show an earlier experiment (it is kept across reloads): wait for the
    // new one to replace it, so a later "done" is this experiment's.
    const heading = this.page.getByTestId('lab-current').getByRole('heading');
    const before = (await heading.count()) > 0 ? await heading.innerText() : null;
    await lab.getByRole('button', { name: 'run experiment' }).click();
    await this.waitUntil(
      'the new experiment in the lab panel',
      async () => (await heading.count()) > 0 && (await heading.innerText()) !== before,
      30_000,
    );
  }

  async waitForExperimentDone(timeoutMs: number): Promise<void> {
    await this.page
      .getByTestId('lab-current')
      .getByRole('heading', { name: /: done/ })
      .waitFor({ timeout: timeoutMs });
  }

  /**
   * A screenshot of the whole page as a reader would see each part: charts off screen skip their
   * redraws (and sections skip layout), so the viewport grows to the page first and the page gets
   * a chart bucket (500 ms) and a histogram redraw (1 s) to catch up.
   */
  async screenshotWholePage(file: string): Promise<void> {
    const viewport = this.page.viewportSize();
    const height = Number(await this.page.evaluate('document.documentElement.scrollHeight'));
    if (viewport !== null) await this.page.setViewportSize({ width: viewport.width, height });
    await this.page.waitForTimeout(1_200);
    await this.page.screenshot({ path: file, fullPage: true });
    if (viewport !== null) await this.page.setViewportSize(viewport);
  }

  async toggleTheme(): Promise<void> {
    await this.page.getByRole('button', { name: 'switch colour theme' }).click();
  }

  /** Polls until `check` holds for the figures, or fails with the last values seen. */
  async waitUntil(description: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await this.page.waitForTimeout(500);
    }
    throw new Error(`timed out waiting for ${description}`);
  }
}
