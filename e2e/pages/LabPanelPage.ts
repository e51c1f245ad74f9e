import type { Locator, Page } from 'playwright-core';

/** The scan-lab panel as a user meets it: fields by their labels, buttons by their names. */
export class LabPanelPage {
  readonly panel: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('panel-lab');
  }

  async open(baseUrl: string): Promise<void> {
    await this.page.goto(baseUrl);
    await this.panel.waitFor();
  }

  field(label: 'variants' | 'rounds' | 'table size in MB' | "type the server's name to confirm"): Locator {
    return this.panel.getByLabel(label, { exact: true });
  }

  runButton(): Locator {
    return this.panel.getByRole('button', { name: /run experiment|running/ });
  }

  cancelButton(): Locator {
    return this.panel.getByRole('button', { name: /cancel experiment|cancelling/ });
  }

  /** Every message in the form's one error area, one per line. */
  async formErrors(): Promise<string[]> {
    const text = await this.panel.getByTestId('lab-form-error').innerText();
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  }

  currentHeading(): Locator {
    return this.panel.getByTestId('lab-current').getByRole('heading');
  }

  async fill(options: { variants: string; rounds: string; tableMb: string; cache?: string }): Promise<void> {
    await this.field('variants').fill(options.variants);
    await this.field('rounds').fill(options.rounds);
    await this.field('table size in MB').fill(options.tableMb);
    if (options.cache !== undefined) await this.panel.getByLabel('cache state').selectOption(options.cache);
  }

  async waitForStatus(status: RegExp, timeoutMs: number): Promise<void> {
    await this.panel.getByTestId('lab-current').getByRole('heading', { name: status }).waitFor({ timeout: timeoutMs });
  }
}
