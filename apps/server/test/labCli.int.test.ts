import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cliProcess.ts';
import { waitUntil, withTimeout } from './support/polling.ts';
import { TEST_DATA_ROOT } from './support/testPostgres.ts';

const DATA_DIR = path.join(TEST_DATA_ROOT, 'lab-cli');
const RUN_LINE = /^ {2}round \d+ \S+: [\d.]+ ms, /;

describe('npm start -- lab (the command line, with its own embedded PostgreSQL 18)', () => {
  beforeAll(async () => {
    await rm(DATA_DIR, { recursive: true, force: true });
  });

  it('runs the drill headless, prints every run the same way and the medians as Markdown', async () => {
    const cli = runCli([
      'lab',
      '--variants',
      'icl=1;eic=16,icl=16',
      '--cache',
      'shared-buffers-cold',
      '--rounds',
      '1',
      '--table-mb',
      '16',
      '--data-dir',
      DATA_DIR,
    ]);
    const code = await withTimeout(cli.exited, 120_000, 'aioscope lab');
    expect(code, cli.stderr()).toBe(0);
    const runLines = cli
      .stdout()
      .split('\n')
      .filter((line) => RUN_LINE.test(line));
    expect(runLines).toHaveLength(2);
    for (const line of runLines) expect(line).toMatch(/ms, [\d.]+ kB\/read, io_method worker/);
    expect(cli.stdout()).toMatch(/shared-buffers-cold scans of 16 MB, 1 round \(embedded PostgreSQL 18\)/);
    expect(cli.stdout()).toMatch(/\| eic=16,icl=16 \| 1 \|/);
    const saved = /saved: (\S+\.json)/.exec(cli.stdout())?.[1];
    expect(saved !== undefined && existsSync(saved)).toBe(true);
  });

  it('cancels the running experiment on Ctrl-C, says so, and stops its server', async () => {
    const cli = runCli([
      'lab',
      '--variants',
      'icl=1;icl=16',
      '--cache',
      'cold',
      '--rounds',
      '20',
      '--table-mb',
      '64',
      '--data-dir',
      DATA_DIR,
    ]);
    await waitUntil(
      () =>
        cli
          .stdout()
          .split('\n')
          .some((line) => RUN_LINE.test(line)),
      120_000,
      'a first run printed',
    );
    cli.child.kill('SIGINT');
    const code = await withTimeout(cli.exited, 30_000, 'aioscope lab after SIGINT');
    expect(code).toBe(1);
    expect(cli.stderr()).toMatch(/experiment cancelled: interrupted \(SIGINT\)/);
    expect(existsSync(path.join(DATA_DIR, 'pg18/data/postmaster.pid'))).toBe(false);
  });
});
