import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findWebRoot } from './webRoot.ts';

describe('findWebRoot', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('serves the web app the packed package ships beside its bundle', () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'aioscope-webroot-'));
    const web = path.join(root, 'node_modules/@aioscope/server/dist/web');
    mkdirSync(web, { recursive: true });
    writeFileSync(path.join(web, 'index.html'), '<!doctype html>');
    const bundle = pathToFileURL(path.join(root, 'node_modules/@aioscope/server/dist/cli.js')).href;
    expect(findWebRoot(bundle)).toBe(web);
  });

  it("serves the repository's apps/web/dist when run from the sources", () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'aioscope-webroot-'));
    const source = pathToFileURL(path.join(root, 'apps/server/src/app/webRoot.ts')).href;
    expect(findWebRoot(source)).toBe(path.join(root, 'apps/web/dist'));
  });

  it('does not take a web folder without index.html (an interrupted build) for the web app', () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'aioscope-webroot-'));
    mkdirSync(path.join(root, 'apps/server/dist/web'), { recursive: true });
    const bundle = pathToFileURL(path.join(root, 'apps/server/dist/cli.js')).href;
    expect(findWebRoot(bundle)).toBe(path.join(root, 'apps/web/dist'));
  });
});
