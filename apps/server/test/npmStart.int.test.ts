/**
 * `npm start` as a user types it: npm runs the script from the repository's root, whichever
 * folder below it the user is in, and a relative path in a flag must mean the user's folder.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config/config.ts';
import { npmAsUser as npm } from './support/runToEnd.ts';

describe('npm start from a folder inside the checkout', () => {
  let folder: string;

  beforeAll(async () => {
    // Inside the checkout (npm finds its package.json above), in the git-ignored .aioscope/.
    folder = await mkdtemp(path.join(REPO_ROOT, '.aioscope', 'npm-start-'));
    // The script npm start runs, built as its prestart would (esbuild, a second or so); the test
    // then skips the prestart, whose dashboard build (ensureBuilt.int.test.ts) is not its subject.
    const built = await npm(['exec', '--', 'tsx', 'apps/server/scripts/ensureStartBuilt.ts'], REPO_ROOT);
    expect(built.code, built.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('reads a relative --targets path from that folder', async () => {
    // Two targets of one name: read, the file is refused at its line; not found, ENOENT instead.
    await writeFile(
      path.join(folder, 'fleet.yaml'),
      '- name: a\n  url: postgres://monitor@127.0.0.1:1/postgres\n- name: a\n  url: postgres://monitor@127.0.0.1:2/postgres\n',
    );
    const run = await npm(
      ['start', '--silent', '--ignore-scripts', '--', '--targets', 'fleet.yaml', '--port', '0'],
      folder,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('fleet.yaml:3: ');
    expect(run.stderr).toContain('duplicate name (first at line 1)');
    expect(run.stderr).not.toContain('ENOENT');
  }, 120_000);
});
