/**
 * What `npm start` needs of the dashboard's build (scripts/ensureBuilt.ts runs it): whether
 * apps/web/dist is the build of the sources as they are, and a way to put a new build in place that
 * a running aioscope never sees half done.
 *
 * - The build's inputs (the web app's sources, the workspace packages it imports, the configs and
 *   the lockfile) are hashed; the hash is kept in dist/.build-stamp.json with the build's files. A
 *   dot file: the server's static routes skip them, so it is never served.
 * - A build goes to a staging folder inside dist (same file system, so renames are atomic), then
 *   moves in file by file, index.html last: dist/index.html always exists, and the previous build's
 *   files stay for one generation, for a page that loaded the old index.html and asks for its
 *   chunks afterwards.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.build-stamp.json';
export const STAGING_PREFIX = '.staging-';

/** Repository-relative files and folders whose content makes a build. */
export interface BuildInputs {
  readonly files: readonly string[];
  readonly folders: readonly string[];
}

/** What makes the dashboard's bundle. */
export const BUILD_INPUTS: BuildInputs = {
  files: [
    'package-lock.json',
    'tsconfig.base.json',
    'apps/web/package.json',
    'apps/web/tsconfig.json',
    'apps/web/index.html',
    'apps/web/vite.config.ts',
    'apps/web/scripts/webBuild.ts',
    'apps/web/scripts/ensureBuilt.ts',
    'packages/core/package.json',
    'packages/spec/package.json',
  ],
  folders: ['apps/web/src', 'apps/web/public', 'packages/core/src', 'packages/spec/src'],
};

/** Tests are never part of the bundle: changing one does not call for a build. */
const NOT_AN_INPUT = /\.test\.tsx?$/;

export interface BuildStamp {
  /** Hash of the build's inputs (inputsHash). */
  inputs: string;
  /** The build's files, relative to dist, '/'-separated. */
  files: string[];
}

export type BuildDecision = { build: false } | { build: true; reason: string };

/** Whether to build, from what is on disk: a pure function of the stamp, the inputs' hash and missing files. */
export function decideBuild(state: {
  force: boolean;
  inputs: string;
  stamp: BuildStamp | undefined;
  /** Files the stamp lists (index.html always) that are not in dist. */
  missing: readonly string[];
}): BuildDecision {
  if (state.force) return { build: true, reason: 'asked to' };
  if (state.stamp === undefined) return { build: true, reason: 'no build of these sources yet' };
  if (state.stamp.inputs !== state.inputs) return { build: true, reason: 'the sources changed' };
  if (state.missing.length > 0) return { build: true, reason: `${state.missing.join(', ')} missing` };
  return { build: false };
}

/** The stamp a build left, or undefined when there is none or it is not one (then a build follows). */
export function parseStamp(text: string | undefined): BuildStamp | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<BuildStamp> | null;
    if (typeof value?.inputs !== 'string' || !Array.isArray(value.files)) return undefined;
    if (!value.files.every((file): file is string => typeof file === 'string')) return undefined;
    return { inputs: value.inputs, files: value.files };
  } catch {
    return undefined;
  }
}

export function readStamp(distDir: string): BuildStamp | undefined {
  const file = path.join(distDir, STAMP_FILE);
  return parseStamp(existsSync(file) ? readFileSync(file, 'utf8') : undefined);
}

/** The stamp's files (and index.html) that are not in dist. */
export function missingFiles(distDir: string, stamp: BuildStamp | undefined): string[] {
  const wanted = new Set(['index.html', ...(stamp?.files ?? [])]);
  return [...wanted].filter((file) => !existsSync(path.join(distDir, file)));
}

/** Files under a folder, relative and '/'-separated, sorted; dot entries (stamp, staging) skipped. */
export function listFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  if (existsSync(root)) walk('');
  return found.sort();
}

/** SHA-256 over the inputs' paths and contents; a missing input counts as missing, so its arrival changes it. */
export function inputsHash(repoRoot: string, inputs: BuildInputs = BUILD_INPUTS): string {
  const hash = createHash('sha256');
  const add = (relative: string): void => {
    const file = path.join(repoRoot, relative);
    hash.update(`${relative}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : '\0missing');
    hash.update('\0');
  };
  for (const file of inputs.files) add(file);
  for (const folder of inputs.folders) {
    hash.update(`${folder}/\0`);
    for (const file of listFiles(path.join(repoRoot, folder))) {
      if (!NOT_AN_INPUT.test(file)) add(`${folder}/${file}`);
    }
  }
  return hash.digest('hex');
}

/** A fresh staging folder inside dist for the next build; removes those of builds that died. */
export function stagingFolder(distDir: string): string {
  mkdirSync(distDir, { recursive: true });
  for (const entry of readdirSync(distDir)) {
    if (!entry.startsWith(STAGING_PREFIX)) continue;
    const pid = Number(entry.slice(STAGING_PREFIX.length).split('-')[0]);
    if (!processIsRunning(pid)) rmSync(path.join(distDir, entry), { recursive: true, force: true });
  }
  const staging = path.join(distDir, `${STAGING_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(staging);
  return staging;
}

function processIsRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves a finished build from its staging folder into dist: every file by rename, index.html last,
 * so dist/index.html is never missing and never names a file not yet there. Then removes the files
 * of builds before the previous one, writes the new stamp (atomically) and removes the staging folder.
 */
export function swapIn(distDir: string, staging: string, inputs: string): BuildStamp {
  const previous = readStamp(distDir);
  const files = listFiles(staging);
  if (!files.includes('index.html')) throw new Error(`the build in ${staging} has no index.html`);
  for (const file of [...files.filter((name) => name !== 'index.html'), 'index.html']) {
    const target = path.join(distDir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    renameSync(path.join(staging, file), target);
  }
  const keep = new Set([...files, ...(previous?.files ?? [])]);
  for (const file of listFiles(distDir)) if (!keep.has(file)) unlinkSync(path.join(distDir, file));
  removeEmptyFolders(distDir);
  const stamp: BuildStamp = { inputs, files };
  const stampTemp = path.join(staging, STAMP_FILE);
  writeFileSync(stampTemp, `${JSON.stringify(stamp, null, 2)}\n`);
  renameSync(stampTemp, path.join(distDir, STAMP_FILE));
  rmSync(staging, { recursive: true, force: true });
  return stamp;
}

function removeEmptyFolders(root: string): void {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folder = path.join(root, entry.name);
    removeEmptyFolders(folder);
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }
}
