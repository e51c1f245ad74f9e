import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cliProcess.ts';
import { startDebianPostgres, type DebianPostgres } from './support/debianPostgres.ts';

describe('a server too old to watch (Debian PostgreSQL 15)', () => {
  let pg15: DebianPostgres;

  beforeAll(async () => {
    pg15 = await startDebianPostgres(15);
  });

  afterAll(async () => {
    await pg15?.stop();
  });

  it('is refused in one line that says what it is and what aioscope needs, exit code 2', async () => {
    const run = runCli(['--db', pg15.url, '--port', '0']);
    expect(await run.exited).toBe(2);
    const lines = run.stderr().trim().split('\n');
    expect(lines, run.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/PostgreSQL 15\.\d+( \(Debian [^)]*\))? is not supported/);
    expect(lines[0]).toMatch(/16 or newer \(pg_stat_io\)/);
    expect(lines[0]).toMatch(/18 or newer for asynchronous I\/O/);
    expect(lines[0]).not.toMatch(/does not exist/);
  });

  it('with --wait-for-db as well: a version is not something to wait for', async () => {
    const run = runCli(['--db', pg15.url, '--port', '0', '--wait-for-db']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(/PostgreSQL 15\.\d+( \(Debian [^)]*\))? is not supported/);
  });
});
