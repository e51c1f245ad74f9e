import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { whyFolderUnusable } from './usableFolder.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aioscope-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('whyFolderUnusable', () => {
  it('makes a missing folder and its parents', async () => {
    expect(await whyFolderUnusable(path.join(root, 'a', 'b'))).toBeNull();
  });

  it('says why a file, or a folder under a file, cannot be one', async () => {
    const file = path.join(root, 'a-file');
    writeFileSync(file, '');
    expect(await whyFolderUnusable(file)).toBe('ENOTDIR (it is a file)');
    expect(await whyFolderUnusable(path.join(file, 'sub'))).toMatch(/^ENOTDIR /);
  });

  it('answers for a folder that cannot be made under /proc (node’s own recursive mkdir never does)', async () => {
    expect(await whyFolderUnusable('/proc/aioscope-nope/data')).toMatch(/^ENOENT /);
  });
});
