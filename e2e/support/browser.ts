import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** `extraArgs`: flags for this launch besides CHROMIUM_ARGS (a host resolver rule, say). */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<LaunchedBrowser> {
  // Playwright gives each launch a new empty profile of its own and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
  return {
    browser,
    async close(): Promise<void> {
      await browser.close();
    },
  };
}

/** Console messages that are expected and harmless; anything else at error level fails the test. */
const ALLOWED_CONSOLE_ERRORS: RegExp[] = [];

export function collectConsoleErrors(context: BrowserContext): string[] {
  const errors: string[] = [];
  context.on('console', (message) => {
    if (message.type() === 'error' && !ALLOWED_CONSOLE_ERRORS.some((allowed) => allowed.test(message.text()))) {
      errors.push(message.text());
    }
  });
  context.on('weberror', (error) => errors.push(error.error().message));
  return errors;
}
