import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { START_BUNDLE_DIR } from '../../scripts/ensureStartBuilt.ts';
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
