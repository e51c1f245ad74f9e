import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { WEB_ROOT } from '../../apps/server/src/app/server.ts';
import { launchChromium, type LaunchedBrowser } from '../../e2e/support/browser.ts';
import { BENCH_DATA_DIR, log, sleep, withTimeout, type Cleanups } from './common.ts';

/** A copy of apps/web/dist taken once per aioscope start: what every page of that run loads. */
export interface WebSnapshot {
  dir: string;
  js: string;
  css: string | null;
}

const SNAPSHOT_DIR = path.join(BENCH_DATA_DIR, 'web-snapshot');

/** The build the pages load: apps/web/dist, or another one given with --web-dist (before/after runs). */
let webBuild = WEB_ROOT;

/** Measures another build of the page (e.g. of an earlier commit) against this aioscope. */
export function useWebBuild(dir: string): void {
  checkWebBuild(dir, '--web-dist');
  webBuild = dir;
}

/** Refuses a folder that holds no complete web build, naming the flag that gave it. */
export function checkWebBuild(dir: string, flag: string): void {
  if (consistentBuild(dir) === null)
    throw new Error(`${flag} ${dir}: no complete web build (index.html and its assets)`);
}

function consistentBuild(dir: string): { js: string; css: string | null } | null {
  try {
    const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
    const js = /src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
    const css = /href="\/assets\/([^"]+\.css)"/.exec(html)?.[1] ?? null;
    if (js === undefined || !existsSync(path.join(dir, 'assets', js))) return null;
    if (css !== null && !existsSync(path.join(dir, 'assets', css))) return null;
    return { js, css };
  } catch {
    return null;
  }
}

/**
 * Copies the built web app. aioscope's static server lists dist/ once at start (wildcard: false),
 * and another process may rebuild dist/ (new hashed names) while the bench runs: pages would then
 * load a shell whose script is a 404. Serving the bundle from this copy keeps a run on one build.
 */
export async function snapshotWebApp(build = webBuild, into = SNAPSHOT_DIR): Promise<WebSnapshot> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const source = consistentBuild(build);
    if (source !== null) {
      rmSync(into, { recursive: true, force: true });
      cpSync(build, into, { recursive: true });
      const copied = consistentBuild(into);
      if (copied !== null) return { dir: into, ...copied };
    }
    await sleep(1_000); // a build in progress: vite empties dist/ first
  }
  throw new Error(`no complete web build in ${build}: run npm run build`);
}

/** The earlier build a `page-ab` run compares the page with (--baseline-web), copied like the page's own. */
export async function snapshotBaselineWeb(dir: string): Promise<WebSnapshot> {
  return snapshotWebApp(dir, `${SNAPSHOT_DIR}-baseline`);
}

/** Serves the page's script, its lazy chunks and stylesheet from the snapshot, whatever names the shell asks for. */
export async function routeToSnapshot(context: BrowserContext, snapshot: WebSnapshot): Promise<void> {
  // Only sub-resources: a document fulfilled by a route counts as non-local to Chromium's Local
  // Network Access checks, which then block the page's WebSocket to 127.0.0.1.
  await context.route('**/assets/*', async (route) => {
    const pathname = new URL(route.request().url()).pathname;
    // The snapshot's scripts (its entry and the chunks it imports lazily) under their own names. A
    // shell from another build asks for another entry name: it gets a module importing the
    // snapshot's entry by its own name, so the lazy chunks, which import it by that name too,
    // share its modules (one React) instead of loading a second copy.
    const own = path.join(snapshot.dir, 'assets', path.basename(pathname));
    if (pathname.endsWith('.js') && existsSync(own)) await route.fulfill({ path: own });
    else if (pathname.endsWith('.js'))
      await route.fulfill({ contentType: 'text/javascript', body: entryImport(snapshot.js) });
    else if (pathname.endsWith('.css') && existsSync(own)) await route.fulfill({ path: own });
    else if (pathname.endsWith('.css') && snapshot.css !== null)
      await route.fulfill({ path: path.join(snapshot.dir, 'assets', snapshot.css) });
    else await route.continue();
  });
}

/** A module whose only work is to run the script `name` of /assets/ (the shell's entry stand-in). */
export function entryImport(name: string): string {
  return `import '/assets/${name}';\n`;
}

/** Opens the dashboard and waits for its first panel (retrying a slow or failed first load). */
export async function openDashboard(page: Page, url: string, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url, { timeout: 30_000 });
      await page.getByRole('heading', { name: 'Reads in flight' }).waitFor({ timeout: 20_000 });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      log(`dashboard did not load (attempt ${attempt}/${attempts}): retrying`);
    }
  }
}

/** Chromium with one context and the dashboard open in it, as every page measurement starts. */
export interface BenchPage {
  chromium: LaunchedBrowser;
  context: BrowserContext;
  page: Page;
}

/**
 * Launches Chromium (closed by `cleanups`), opens one context at 1600 × 1000 in the dark theme
 * loading the `web` build, installs the init scripts before the page's own, and opens the
 * dashboard: the same page for every measurement, so their figures compare.
 */
export async function openBenchPage(
  url: string,
  web: WebSnapshot,
  initScripts: readonly string[],
  cleanups: Cleanups,
): Promise<BenchPage> {
  const chromium = await withTimeout(launchChromium(), 60_000, 'Chromium launch');
  cleanups.add('Chromium', () => chromium.close());
  const context = await chromium.browser.newContext({ viewport: { width: 1600, height: 1000 }, colorScheme: 'dark' });
  await routeToSnapshot(context, web);
  for (const script of initScripts) await context.addInitScript({ content: script });
  const page = await context.newPage();
  await openDashboard(page, url);
  return { chromium, context, page };
}
