import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { START_BUNDLE_DIR } from '../../scripts/ensureStartBuilt.ts';
import { bundleServer } from '../../scripts/serverBundle.ts';
import { REPO_ROOT } from '../config/config.ts';
import { findWebRoot } from './webRoot.ts';

// config.ts and webRoot.ts find the repository from where their code runs, which in `npm start`'s
// bundle is build/start: it must stand where their sources do for both to find the same folders.
describe("npm start's bundle (build/start) finds what the sources find", () => {
  it('the repository, where .aioscope/ is kept: as many folders up as from src/config', () => {
    expect(path.resolve(START_BUNDLE_DIR, '../../../..')).toBe(REPO_ROOT);
  });

  it('the dashboard in apps/web/dist', () => {
    const fromBundle = findWebRoot(pathToFileURL(path.join(START_BUNDLE_DIR, 'cli.js')).href);
    expect(fromBundle).toBe(path.join(REPO_ROOT, 'apps/web/dist'));
  });
});

/** The npm packages a bundle imports at its top, which node loads before the first line runs. */
function staticImports(bundle: string): Set<string> {
  return new Set([...bundle.matchAll(/^import\s[^;]*?from\s*"([^"]+)";$/gm)].map((match) => match[1] ?? ''));
}

describe("the command line's bundle loads what every start needs, not more", () => {
  it('no Redis client unless --adapter asks for one (it cost each start ~240 ms and ~27 MB)', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'aioscope-bundle-'));
    try {
      await bundleServer(outDir, { sourcemap: false });
      const bundle = readFileSync(path.join(outDir, 'cli.js'), 'utf8');
      const imports = staticImports(bundle);
      // The pattern finds the bundle's static imports: were it to find none, the check below would pass for nothing.
      expect(imports).toContain('pg');
      expect([...imports].filter((name) => /redis/.test(name))).toEqual([]);
      expect(bundle).toContain('import("redis")');
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});
