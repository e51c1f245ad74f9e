import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { REPO_ROOT } from '../../apps/server/src/config/config.ts';
import { type CliRun, runCli, stopCli, waitForUrl } from '../../apps/server/test/support/cliProcess.ts';
import { launchChromium, type LaunchedBrowser } from './browser.ts';

/** Where e2e tests leave their screenshots. */
export const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');

/** One aioscope command line and one Chromium shared by a describe block's tests. */
export interface AioscopeInChromium {
  readonly app: CliRun;
  /** The page's address without a trailing slash, so paths append as `${baseUrl}/t/…`. */
  readonly baseUrl: string;
  readonly chromium: LaunchedBrowser;
}

/**
 * Registers the describe block's beforeAll/afterAll: a fresh data folder under .aioscope/, aioscope
 * started with `args` on a free port, and Chromium. The returned object's fields are readable from
 * the tests on (reading one earlier is a mistake in the test, so it throws).
 */
export function aioscopeInChromium(
  args: readonly string[],
  options: { dataDirName: string; startTimeoutMs?: number },
): AioscopeInChromium {
  const dataDir = path.join(REPO_ROOT, '.aioscope', options.dataDirName);
  let app: CliRun | undefined;
  let baseUrl: string | undefined;
  let chromium: LaunchedBrowser | undefined;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await rm(dataDir, { recursive: true, force: true });
    app = runCli([...args, '--port', '0', '--data-dir', dataDir]);
    baseUrl = (await waitForUrl(app)).replace(/\/$/, '');
    chromium = await launchChromium();
  }, options.startTimeoutMs);

  afterAll(async () => {
    await chromium?.close();
    await stopCli(app);
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is read before aioscope was started (beforeAll)`);
    return value;
  };
  return {
    get app() {
      return started(app, 'app');
    },
    get baseUrl() {
      return started(baseUrl, 'baseUrl');
    },
    get chromium() {
      return started(chromium, 'chromium');
    },
  };
}
