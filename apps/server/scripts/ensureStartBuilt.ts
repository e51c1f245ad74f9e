/**
 * The server workspace's prestart: `npm start` runs the server as compiled JavaScript
 * (build/start/cli.js, esbuild's bundle of src/cli.ts), not through tsx. tsx keeps costing after
 * start-up (its loader, source maps of every module): the bundle measured 0.36 points of a core
 * less for one watched server at 20 Hz (bench/README.md, own-cost). Like the dashboard's
 * ensureBuilt, it builds only when the bundle's inputs changed since the last build (their hash
 * is in build/start/.build-stamp.json), prints one line to stderr when it does, and nothing when
 * the bundle is current. `--force` builds whatever the stamp says.
 *
 * build/start/ sits two folders below apps/server, as src/config/ and src/app/ do: the bundle finds
 * the repository (config.ts REPO_ROOT, so `.aioscope/` stays the data folder) and apps/web/dist
 * (app/webRoot.ts) the way the sources do. It is not dist/: the package's build owns that folder.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  decideBuild,
  inputsHash,
  listFiles,
  readStamp,
  STAMP_FILE,
  type BuildInputs,
} from '../../web/scripts/webBuild.ts';
import { SERVER_DIR, bundleServer } from './serverBundle.ts';

const REPO_ROOT = path.resolve(SERVER_DIR, '../..');
export const START_BUNDLE_DIR = path.join(SERVER_DIR, 'build/start');

/** What makes the server's bundle (tests are never part of it: webBuild's inputsHash skips them). */
export const START_BUILD_INPUTS: BuildInputs = {
  files: [
    'package-lock.json',
    'tsconfig.base.json',
    'apps/server/package.json',
    'apps/server/scripts/serverBundle.ts',
    'apps/server/scripts/ensureStartBuilt.ts',
    'packages/core/package.json',
    'packages/spec/package.json',
  ],
  folders: ['apps/server/src', 'packages/core/src', 'packages/spec/src'],
};

/** Builds build/start when its inputs changed (or `force`); says whether it built. */
export async function ensureStartBuilt(force: boolean): Promise<boolean> {
  const inputs = inputsHash(REPO_ROOT, START_BUILD_INPUTS);
  const stamp = readStamp(START_BUNDLE_DIR);
  const wanted = ['cli.js', 'recordingIngestWorker.js', ...(stamp?.files ?? [])];
  const decision = decideBuild({
    force,
    inputs,
    stamp,
    missing: [...new Set(wanted)].filter((file) => !existsSync(path.join(START_BUNDLE_DIR, file))),
  });
  if (!decision.build) return false;
  const started = performance.now();
  // Built beside and moved in whole: an interrupted build never leaves half a bundle behind a stamp.
  const staging = path.join(path.dirname(START_BUNDLE_DIR), `.staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await bundleServer(staging, { sourcemap: true });
    writeFileSync(
      path.join(staging, STAMP_FILE),
      `${JSON.stringify({ inputs, files: listFiles(staging) }, null, 2)}\n`,
    );
    rmSync(START_BUNDLE_DIR, { recursive: true, force: true });
    renameSync(staging, START_BUNDLE_DIR);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(
    `aioscope: built the server into ${path.relative(process.cwd(), START_BUNDLE_DIR) || '.'} in ${seconds} s (${decision.reason})`,
  );
  return true;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === import.meta.filename) {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--force');
  if (unknown.length > 0) {
    console.error(`aioscope: ensureStartBuilt takes only --force, not ${unknown.join(' ')}`);
    process.exit(2);
  }
  try {
    await ensureStartBuilt(args.includes('--force'));
  } catch (error) {
    console.error(`aioscope: building the server failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
