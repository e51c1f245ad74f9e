/**
 * `npm start`'s prestart and `npm run build`: builds the dashboard into apps/web/dist when its
 * sources changed since the last build (or there is none), else does nothing and prints nothing.
 * `--force` builds whatever the stamp says (`npm run build`, before the e2e tests).
 *
 * A build prints one line (to stderr: stdout stays aioscope's, e.g. for `lab --json`), and vite only
 * its warnings and errors. It never empties dist: see webBuild.ts for how it moves in.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideBuild, inputsHash, missingFiles, readStamp, stagingFolder, swapIn } from './webBuild.ts';

const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO_ROOT = path.resolve(WEB_DIR, '../..');
const DIST_DIR = path.join(WEB_DIR, 'dist');

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--force');
if (unknown.length > 0) {
  console.error(`aioscope: ensureBuilt takes only --force, not ${unknown.join(' ')}`);
  process.exit(2);
}

const inputs = inputsHash(REPO_ROOT);
const stamp = readStamp(DIST_DIR);
const decision = decideBuild({
  force: args.includes('--force'),
  inputs,
  stamp,
  missing: missingFiles(DIST_DIR, stamp),
});

if (decision.build) {
  const started = performance.now();
  const staging = stagingFolder(DIST_DIR);
  try {
    // Imported only to build: an up-to-date start does not pay for loading vite.
    const { build } = await import('vite');
    await build({ root: WEB_DIR, build: { outDir: staging, emptyOutDir: true }, logLevel: 'warn' });
    swapIn(DIST_DIR, staging, inputs);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    console.error(`aioscope: building the dashboard failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(
    `aioscope: built the dashboard into ${path.relative(process.cwd(), DIST_DIR) || '.'} in ${seconds} s (${decision.reason})`,
  );
}
