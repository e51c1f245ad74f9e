import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../apps/server/src/config/config.ts';
import { launchChromium } from '../../e2e/support/browser.ts';
import { waitForUptime, type BenchAioscope } from './aioscope.ts';
import { entryImport, openDashboard } from './dashboard.ts';
import {
  BENCH_DATA_DIR,
  log,
  sleep,
  using,
  withTimeout,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { briefRanking, summarizeProfile, type CpuProfile } from './cpuProfile.ts';
import { fmt } from './stats.ts';

const execFileAsync = promisify(execFile);
/** An unminified production build of the web app, so the CPU profile has real function names. */
const UNMINIFIED_DIR = path.join(BENCH_DATA_DIR, 'web-unminified');
const MODULE_MARKER = /^\/\/ ((?:node_modules|apps|packages)\/\S+\.(?:js|mjs|cjs|ts|tsx))$/;

async function buildUnminified(): Promise<string> {
  log('profile: building an unminified copy of the web app into .aioscope/bench/web-unminified ...');
  await execFileAsync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      path.join(REPO_ROOT, 'apps/web'),
      '--outDir',
      UNMINIFIED_DIR,
      '--emptyOutDir',
      '--minify',
      'false',
      '--logLevel',
      'warn',
    ],
    { cwd: REPO_ROOT, timeout: 180_000 },
  );
  return UNMINIFIED_DIR;
}

/** Line (0-based) → bundled module, from the `// path` markers the bundler writes unminified. */
function moduleIndex(bundle: string): { line: number; module: string }[] {
  const index: { line: number; module: string }[] = [];
  bundle.split('\n').forEach((text, line) => {
    const match = MODULE_MARKER.exec(text);
    if (match?.[1] !== undefined) index.push({ line, module: match[1] });
  });
  return index;
}

function moduleAt(index: { line: number; module: string }[], line: number): string {
  let low = 0;
  let high = index.length - 1;
  let found = '(bundle prelude)';
  while (low <= high) {
    const middle = (low + high) >> 1;
    const entry = index[middle] as { line: number; module: string };
    if (entry.line <= line) {
      found = entry.module;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found.replace(/^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, '$1');
}

/**
 * Diagnostic, not a target: a 15 s CPU profile of the dashboard's main thread (CDP Profiler,
 * 0.5 ms sampling), served from an unminified build so functions keep their names. Self time by
 * function and by package, and inclusive time of the app's own functions.
 */
export async function runProfile(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const dir = await buildUnminified();
    const indexHtml = readFileSync(path.join(dir, 'index.html'), 'utf8');
    const bundleName = /src="\/assets\/([^"]+\.js)"/.exec(indexHtml)?.[1];
    if (bundleName === undefined) throw new Error('unminified build: no script in index.html');
    const modules = moduleIndex(readFileSync(path.join(dir, 'assets', bundleName), 'utf8'));
    await waitForUptime(app, 65);
    const chromium = await withTimeout(launchChromium(), 60_000, 'Chromium launch');
    cleanups.add('Chromium', () => chromium.close());
    const context = await chromium.browser.newContext({ viewport: { width: 1600, height: 1000 }, colorScheme: 'dark' });
    // Only the bundle is swapped: a document fulfilled by a route counts as non-local to Chromium's
    // Local Network Access checks, which then block the page's WebSocket to 127.0.0.1.
    const cssName = /href="\/assets\/([^"]+\.css)"/.exec(indexHtml)?.[1];
    await context.route('**/assets/*', async (route) => {
      const pathname = new URL(route.request().url()).pathname;
      // The unminified entry and its lazy chunks under their own names; the shell's entry name gets
      // a module importing the unminified entry by its name (one copy of each module, see entryImport).
      const chunk = path.join(dir, 'assets', path.basename(pathname));
      if (pathname.endsWith('.js') && existsSync(chunk)) await route.fulfill({ path: chunk });
      else if (pathname.endsWith('.js'))
        await route.fulfill({ contentType: 'text/javascript', body: entryImport(bundleName) });
      else if (pathname.endsWith('.css') && cssName !== undefined)
        await route.fulfill({ path: path.join(dir, 'assets', cssName) });
      else await route.continue();
    });
    const page = await context.newPage();
    await openDashboard(page, app.url);
    await sleep(options.quick ? 4_000 : 10_000); // load, snapshot and first renders are not steady state
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    const seconds = options.quick ? 8 : 15;
    log(`profile: sampling the dashboard's main thread for ${seconds} s ...`);
    await cdp.send('Profiler.start');
    await sleep(seconds * 1000);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    await chromium.close();

    const summary = summarizeProfile(profile, (node) =>
      node.callFrame.url.includes('/assets/') ? moduleAt(modules, node.callFrame.lineNumber) : '(native)',
    );
    const idle = summary.idleShare;
    const result = {
      measurement: 'CPU profile of the dashboard main thread (diagnostic)',
      rateHz: app.rateHz,
      seconds,
      ...summary,
    };
    writeResult('profile', result);
    return [
      {
        measurement: '5b. browser CPU profile (diagnostic)',
        condition: `dashboard at ${app.rateHz} Hz, ${seconds} s, unminified build`,
        result:
          `idle ${fmt(100 * idle, 0)} %; by package: ${briefRanking(result.selfByModule, 5)}; ` +
          `app code inclusive: ${briefRanking(result.inclusiveAppFunctions, 6)}`,
        target: '–',
        verdict: 'n/a',
      },
    ];
  }, parent);
}
