/**
 * `npm start`'s prestart and `npm run build` as a user runs them, on the repository's apps/web/dist:
 * an up-to-date start builds nothing and prints nothing, and a build never takes the dashboard away
 * from an aioscope already serving it (a second `npm start` from the same checkout used to empty
 * dist for about a second: 404 on / and on the script).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { npmAsUser, type FinishedRun } from '../../server/test/support/runToEnd.ts';
import { BUILD_INPUTS, readStamp } from './webBuild.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const DIST = path.join(REPO_ROOT, 'apps/web/dist');
const INDEX = path.join(DIST, 'index.html');
const BUILD_TIMEOUT_MS = 120_000;

/** npm in the repository, as from a user's shell. */
function npm(args: string[]): Promise<FinishedRun> {
  return npmAsUser(args, REPO_ROOT);
}

function identity(file: string): { ino: number; mtimeMs: number } {
  const { ino, mtimeMs } = statSync(file);
  return { ino, mtimeMs };
}

/** The files index.html loads (/assets/…), relative to dist. */
function referencedAssets(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="\/([^"]+)"/g)].map((match) => match[1] ?? '');
}

describe('the dashboard build behind npm start', () => {
  it(
    'builds at most once: a second prestart (dashboard and server) with unchanged sources leaves the builds alone and prints nothing',
    async () => {
      const first = await npm(['run', 'prestart', '--silent']);
      expect(first.code, first.stderr).toBe(0);
      // Built (the sources changed since the last build) or already up to date: no vite report either way.
      expect(first.stdout).toBe('');
      // npm start's prestart compiles the server (build/start) too, the first time, as on a fresh
      // clone, and says so in one line.
      expect(first.stderr).toMatch(
        /^(aioscope: built the dashboard into \S+ in [\d.]+ s \([^)]+\)\n)?(aioscope: built the server into \S+ in [\d.]+ s \([^)]+\)\n)?$/,
      );
      const built = identity(INDEX);
      // The server workspace's own prestart (npm start --workspace @aioscope/server) does the same.
      const server = await npm(['run', 'prestart', '--workspace', '@aioscope/server', '--silent']);
      expect(server.code, server.stderr).toBe(0);
      expect(server.stdout).toBe('');
      expect(server.stderr).toMatch(/^(aioscope: built the server into \S+ in [\d.]+ s \([^)]+\)\n)?$/);

      const second = await npm(['run', 'prestart', '--silent']);
      expect(second).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(identity(INDEX)).toEqual(built);
      expect(readStamp(DIST)?.files).toContain('index.html');
      const serverAgain = await npm(['run', 'prestart', '--workspace', '@aioscope/server', '--silent']);
      expect(serverAgain).toEqual({ code: 0, stdout: '', stderr: '' });
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'starts with aioscope’s own lines only when the build is up to date (npm start --silent -- --help)',
    async () => {
      const help = await npm(['start', '--silent', '--', '--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^aioscope: live view of PostgreSQL asynchronous I\/O\n/);
      expect(help.stderr).toBe('');
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'never leaves dist without index.html, nor index.html naming a file not there, while a build runs',
    async () => {
      expect(existsSync(INDEX)).toBe(true);
      const before = identity(INDEX);
      let done = false;
      const build = npm(['run', 'build', '--silent']).finally(() => (done = true));
      let checks = 0;
      const missing: string[] = [];
      let replaced = false;
      while (!done) {
        checks += 1;
        if (!existsSync(INDEX)) missing.push('index.html');
        else if (checks % 20 === 0) {
          try {
            replaced ||= statSync(INDEX).ino !== before.ino;
            for (const asset of referencedAssets(readFileSync(INDEX, 'utf8')))
              if (!existsSync(path.join(DIST, asset))) missing.push(asset);
          } catch (error) {
            missing.push(`index.html (${String(error)})`);
          }
        }
        await nextTurn();
      }
      const run = await build;
      expect(run.code, run.stderr).toBe(0);
      expect(checks).toBeGreaterThan(100);
      expect(missing).toEqual([]);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^aioscope: built the dashboard into \S+ in [\d.]+ s \(asked to\)\n$/);
      // It did build: index.html was replaced (renamed in), and what it loads is there.
      expect(replaced || identity(INDEX).ino !== before.ino).toBe(true);
      for (const asset of referencedAssets(readFileSync(INDEX, 'utf8')))
        expect(existsSync(path.join(DIST, asset))).toBe(true);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'hashes every file the bundle is made of (a source outside the inputs would leave a stale build)',
    async () => {
      const { build } = await import('vite');
      const result = await build({
        root: path.join(REPO_ROOT, 'apps/web'),
        // Nothing written, nothing emptied: dist stays the one the other tests look at.
        build: { write: false, emptyOutDir: false },
        logLevel: 'silent',
      });
      const outputs = Array.isArray(result) ? result : [result];
      const modules = outputs
        .flatMap((output) => ('output' in output ? output.output : []))
        .flatMap((item) => (item.type === 'chunk' ? item.moduleIds : []))
        .filter((id) => path.isAbsolute(id) && !id.includes(`${path.sep}node_modules${path.sep}`))
        .map((id) =>
          path
            .relative(REPO_ROOT, id.split('?')[0] ?? id)
            .split(path.sep)
            .join('/'),
        );
      expect(modules.length).toBeGreaterThan(50);
      const covered = (file: string): boolean =>
        (BUILD_INPUTS.files as readonly string[]).includes(file) ||
        BUILD_INPUTS.folders.some((folder) => file.startsWith(`${folder}/`));
      expect(modules.filter((file) => !covered(file))).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );
});
