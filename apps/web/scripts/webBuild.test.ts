import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUILD_INPUTS,
  STAMP_FILE,
  decideBuild,
  inputsHash,
  listFiles,
  missingFiles,
  parseStamp,
  readStamp,
  stagingFolder,
  swapIn,
  type BuildStamp,
} from './webBuild.ts';

const STAMP: BuildStamp = { inputs: 'abc', files: ['index.html', 'assets/index-1.js'] };

describe('decideBuild', () => {
  it('builds nothing when the stamp is of these inputs and its files are there', () => {
    expect(decideBuild({ force: false, inputs: 'abc', stamp: STAMP, missing: [] })).toEqual({ build: false });
  });

  it('builds when asked, when there is no build, when the sources changed or a file is missing', () => {
    expect(decideBuild({ force: true, inputs: 'abc', stamp: STAMP, missing: [] })).toEqual({
      build: true,
      reason: 'asked to',
    });
    expect(decideBuild({ force: false, inputs: 'abc', stamp: undefined, missing: ['index.html'] })).toEqual({
      build: true,
      reason: 'no build of these sources yet',
    });
    expect(decideBuild({ force: false, inputs: 'def', stamp: STAMP, missing: [] })).toEqual({
      build: true,
      reason: 'the sources changed',
    });
    expect(decideBuild({ force: false, inputs: 'abc', stamp: STAMP, missing: ['assets/index-1.js'] })).toEqual({
      build: true,
      reason: 'assets/index-1.js missing',
    });
  });
});

describe('parseStamp', () => {
  it('reads a stamp and refuses anything else (a build follows)', () => {
    expect(parseStamp(JSON.stringify(STAMP))).toEqual(STAMP);
    for (const text of [undefined, '', 'not json', 'null', '{"inputs":1,"files":[]}', '{"inputs":"a","files":[1]}'])
      expect(parseStamp(text), String(text)).toBeUndefined();
  });
});

describe('on disk', () => {
  let root: string;
  const write = (relative: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  };
  const read = (relative: string): string => readFileSync(path.join(root, relative), 'utf8');

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'aioscope-webbuild-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe('inputsHash', () => {
    beforeEach(() => {
      write('package-lock.json', '{}');
      write('apps/web/index.html', '<html>');
      write('apps/web/src/main.tsx', 'main');
      write('apps/web/src/panels/Panel.tsx', 'panel');
      write('packages/core/src/index.ts', 'core');
    });

    it('is the same for the same contents, whatever their times', () => {
      const before = inputsHash(root);
      utimesSync(path.join(root, 'apps/web/src/main.tsx'), new Date(0), new Date(0));
      expect(inputsHash(root)).toBe(before);
      expect(before).toMatch(/^[0-9a-f]{64}$/);
    });

    it('changes with a source, a workspace package the web imports, the lockfile, a new or removed file', () => {
      const seen = new Set([inputsHash(root)]);
      const changes = [
        () => write('apps/web/src/panels/Panel.tsx', 'panel 2'),
        () => write('packages/core/src/index.ts', 'core 2'),
        () => write('package-lock.json', '{"v":2}'),
        () => write('apps/web/src/panels/New.tsx', 'new'),
        () => rmSync(path.join(root, 'apps/web/src/panels/New.tsx')),
        () => write('apps/web/vite.config.ts', 'config'),
        () => write('packages/spec/src/frames.ts', 'spec'),
      ];
      for (const [index, change] of changes.entries()) {
        change();
        const hash = inputsHash(root);
        // Removing New.tsx comes back to the hash before it was added.
        if (index === 4) expect(seen.has(hash)).toBe(true);
        else expect(seen.has(hash), `change ${index}`).toBe(false);
        seen.add(hash);
      }
    });

    it('does not change with a test file, node_modules or a file outside the inputs', () => {
      const before = inputsHash(root);
      write('apps/web/src/panels/Panel.test.tsx', 'test');
      write('packages/core/src/sql.test.ts', 'test');
      write('apps/web/src/node_modules/x/index.js', 'x');
      write('apps/server/src/cli.ts', 'server');
      write('apps/web/dist/index.html', 'built');
      expect(inputsHash(root)).toBe(before);
    });

    it('names existing files and folders of this repository', () => {
      const repo = path.resolve(import.meta.dirname, '../../..');
      for (const file of BUILD_INPUTS.files)
        expect(readFileSync(path.join(repo, file)).length, file).toBeGreaterThan(0);
      for (const folder of BUILD_INPUTS.folders.filter((name) => name !== 'apps/web/public'))
        expect(listFiles(path.join(repo, folder)).length, folder).toBeGreaterThan(0);
    });
  });

  describe('swapIn', () => {
    const dist = (): string => path.join(root, 'dist');
    const stage = (files: Record<string, string>): string => {
      const staging = stagingFolder(dist());
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(staging, name)), { recursive: true });
        writeFileSync(path.join(staging, name), text);
      }
      return staging;
    };

    it('moves a build in, keeps the previous build for one generation, and stamps it', () => {
      // A dist from before stamps: its files are nobody's previous build.
      write('dist/index.html', 'old');
      write('dist/assets/old.js', 'old');

      swapIn(dist(), stage({ 'index.html': 'one', 'assets/one.js': '1', 'assets/lazy-one.js': '1' }), 'h1');
      expect(read('dist/index.html')).toBe('one');
      expect(listFiles(dist())).toEqual(['assets/lazy-one.js', 'assets/one.js', 'index.html']);
      expect(readStamp(dist())).toEqual({ inputs: 'h1', files: ['assets/lazy-one.js', 'assets/one.js', 'index.html'] });

      swapIn(dist(), stage({ 'index.html': 'two', 'assets/two.js': '2' }), 'h2');
      expect(read('dist/index.html')).toBe('two');
      // A page that loaded index.html "one" can still fetch its lazy chunk.
      expect(listFiles(dist())).toEqual(['assets/lazy-one.js', 'assets/one.js', 'assets/two.js', 'index.html']);
      expect(readStamp(dist())?.files).toEqual(['assets/two.js', 'index.html']);

      swapIn(dist(), stage({ 'index.html': 'three', 'chunks/three.js': '3' }), 'h3');
      expect(listFiles(dist())).toEqual(['assets/two.js', 'chunks/three.js', 'index.html']);
      expect(missingFiles(dist(), readStamp(dist()))).toEqual([]);
      // Staging folders are gone, the stamp is a dot file beside the build.
      expect(listFiles(dist()).some((file) => file.startsWith('.'))).toBe(false);
      expect(read(`dist/${STAMP_FILE}`)).toContain('"inputs": "h3"');
    });

    it('refuses a build without index.html and leaves dist as it was', () => {
      write('dist/index.html', 'kept');
      expect(() => swapIn(dist(), stage({ 'assets/a.js': 'a' }), 'h')).toThrow(/no index\.html/);
      expect(read('dist/index.html')).toBe('kept');
    });

    it('lists what a stamp names but dist lacks, index.html always', () => {
      mkdirSync(dist());
      expect(missingFiles(dist(), undefined)).toEqual(['index.html']);
      write('dist/index.html', 'x');
      expect(missingFiles(dist(), { inputs: 'h', files: ['index.html', 'assets/a.js'] })).toEqual(['assets/a.js']);
    });
  });

  it('removes the staging folders of builds whose process is gone, not those of running ones', () => {
    const dist = path.join(root, 'dist');
    mkdirSync(path.join(dist, '.staging-999999999-x'), { recursive: true });
    mkdirSync(path.join(dist, `.staging-${process.pid}-y`), { recursive: true });
    const staging = stagingFolder(dist);
    expect(path.basename(staging)).toMatch(new RegExp(`^\\.staging-${process.pid}-`));
    expect(readdirSync(dist).sort()).toEqual([`.staging-${process.pid}-y`, path.basename(staging)].sort());
  });
});
