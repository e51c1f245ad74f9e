import type { Locator, Page } from 'playwright-core';

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

/** The element with keyboard focus: what it is ('pid' for a pid button in the processes table). */
export interface FocusedElement {
  kind: string;
  name: string;
  /** Whether it draws an outline or a ring where a keyboard user can see it. */
  indicator: boolean;
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

  /** The moment a past range shows, from the URL (absent there: the range's end); null when live. */
  momentOfUrl(): number | null {
    const url = new URL(this.page.url());
    const at = url.searchParams.get('at') ?? url.searchParams.get('to');
    return at === null ? null : Number(at);
  }

  /** The range in the URL, or null when live. */
  rangeOfUrl(): { from: number; to: number } | null {
    const url = new URL(this.page.url());
    const from = url.searchParams.get('from');
    const to = url.searchParams.get('to');
    return from === null || to === null ? null : { from: Number(from), to: Number(to) };
  }

  /** The processes table as shown: each row's pid and whether it is dimmed (a process that left). */
  async processRows(): Promise<string[]> {
    const rows = this.page.getByTestId('panel-processes').locator('tbody tr');
    return rows.evaluateAll((elements) =>
      elements.map((row) => `${row.getAttribute('data-testid') ?? ''}${row.classList.contains('gone') ? ' gone' : ''}`),
    );
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
    // The experiment's own heading (h3); the EXPLAIN IO view below it has headings of its own.
    const heading = this.page.getByTestId('lab-current').getByRole('heading', { level: 3 });
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

  /** Grows the viewport to the whole page, so sections that skip layout off screen are laid out. */
  async growViewportToPage(): Promise<void> {
    const viewport = this.page.viewportSize();
    const height = Number(await this.page.evaluate('document.documentElement.scrollHeight'));
    if (viewport !== null) await this.page.setViewportSize({ width: viewport.width, height });
    await this.page.waitForTimeout(1_200);
  }

  /** How wide the page is laid out: more than the viewport means it scrolls sideways. */
  async documentScrollWidth(): Promise<number> {
    return Number(await this.page.evaluate('document.documentElement.scrollWidth'));
  }

  skipLink(): Locator {
    return this.page.getByRole('link', { name: 'Skip to live panels' });
  }

  processesPanel(): Locator {
    return this.page.getByTestId('panel-processes');
  }

  /** Waits for a row of a backend type in the processes table. */
  async waitForProcessRow(backendType: string, timeoutMs: number): Promise<void> {
    await this.page
      .locator('[data-testid^="process-row-"]', { hasText: backendType })
      .first()
      .waitFor({ timeout: timeoutMs });
  }

  /** The element that has keyboard focus, and whether it draws a focus indicator (outline or ring). */
  async focused(): Promise<FocusedElement> {
    return (await this.page.evaluate(`(() => {
      const element = document.activeElement;
      if (element === null || element === document.body) return { kind: 'none', name: '', indicator: false };
      const style = getComputedStyle(element);
      const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      const ring = style.boxShadow !== 'none';
      const inProcessRow = element.closest('[data-testid^="process-row-"]') !== null;
      return {
        kind: inProcessRow && element.classList.contains('link') ? 'pid' : element.tagName.toLowerCase(),
        name: (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 60),
        indicator: outline || ring,
      };
    })()`)) as FocusedElement;
  }

  /**
   * Where the processes table's last header cell ends and where its panel's visible area ends
   * (the table's scrolling wrapper), in viewport pixels.
   */
  async processesLastColumnEdge(): Promise<{ headerRight: number; visibleRight: number }> {
    return (await this.page.evaluate(`(() => {
      const panel = document.querySelector('[data-testid="panel-processes"]');
      const header = panel.querySelector('table.processes thead th:last-child');
      const wrapper = panel.querySelector('.table-wrap') ?? panel;
      return {
        headerRight: header.getBoundingClientRect().right,
        visibleRight: Math.min(wrapper.getBoundingClientRect().right, panel.getBoundingClientRect().right),
      };
    })()`)) as { headerRight: number; visibleRight: number };
  }

  /** The settings audit's "why" cells: their widths and the panel's, in pixels. */
  async auditWhyWidths(): Promise<{ panel: number; why: number[] }> {
    return (await this.page.evaluate(`(() => {
      const panel = document.querySelector('[data-testid="panel-audit"]');
      return {
        panel: panel.getBoundingClientRect().width,
        why: [...panel.querySelectorAll('tbody tr')].map((row) => row.lastElementChild.getBoundingClientRect().width),
      };
    })()`)) as { panel: number; why: number[] };
  }

  /** Opens the explanation of an (i) by focusing it, as a keyboard does; returns where its text is drawn. */
  async openExplanation(label: string): Promise<{ left: number; right: number }> {
    await this.page.getByRole('button', { name: `About ${label}` }).focus();
    const box = await this.page.getByRole('tooltip').boundingBox();
    if (box === null) throw new Error(`the explanation of ${label} is not shown`);
    return { left: box.x, right: box.x + box.width };
  }

  /**
   * Opens every explanation inside a panel in turn, by keyboard focus, and checks the corners of
   * its text that lie outside its panel: each must be the topmost thing there (not covered by the
   * panels after its own). Returns how many opened, how many reached outside and the texts covered
   * there. In one page script: live rows come and go, so buttons that left the page are passed by.
   */
  async explanationsOutsideTheirPanel(): Promise<{ opened: number; outside: number; covered: string[] }> {
    return (await this.page.evaluate(`(async () => {
      const result = { opened: 0, outside: 0, covered: [] };
      const painted = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      for (const button of [...document.querySelectorAll('.panel .info')]) {
        if (!button.isConnected) continue;
        button.scrollIntoView({ block: 'center' });
        button.focus();
        await painted();
        // A live row may have been replaced while the page painted: its button is then gone.
        const tip = button.isConnected ? button.parentElement.querySelector('.explain-text') : null;
        const panelOfTip = tip?.closest('.panel') ?? null;
        if (tip === null || panelOfTip === null) continue;
        result.opened++;
        const text = tip.getBoundingClientRect();
        const panel = panelOfTip.getBoundingClientRect();
        const corners = [[text.left + 4, text.top + 4], [text.right - 4, text.top + 4],
          [text.left + 4, text.bottom - 4], [text.right - 4, text.bottom - 4]];
        const out = corners.filter(([x, y]) => x < panel.left || x > panel.right || y < panel.top || y > panel.bottom);
        if (out.length > 0) result.outside++;
        if (out.some(([x, y]) => !tip.contains(document.elementFromPoint(x, y)))) result.covered.push(tip.textContent.slice(0, 40));
        button.blur();
        await painted();
      }
      return result;
    })()`)) as { opened: number; outside: number; covered: string[] };
  }

  /** Named by what it switches to: "light theme" while dark, "dark theme" while light. */
  themeToggle(): Locator {
    return this.page.getByRole('button', { name: /^(light|dark) theme$/ });
  }

  async toggleTheme(): Promise<void> {
    await this.themeToggle().click();
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
