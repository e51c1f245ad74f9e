/**
 * deploy/demo-load/demo-load.sh, the demo load service of docker-compose.yml, run as the postgres:18
 * container runs it (sh, psql and the PG* variables) against a real PostgreSQL 18 with the compose
 * file's shared_buffers. No Docker engine here: the script and its SQL are what is tested, with
 * Debian's psql (postgresql-client, which .ci/run installs with postgresql-15).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config/config.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { runToEnd, type FinishedRun } from './support/runToEnd.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

const SCRIPT = path.join(REPO_ROOT, 'deploy/demo-load/demo-load.sh');
const TABLE = 'aioscope_demo_load.scan_me';
/** Larger than shared_buffers (64MB, as in docker-compose.yml), small enough to fill in seconds. */
const TABLE_MB = 96;

describe('the demo load of docker-compose.yml', () => {
  let server: EmbeddedPostgresServer;

  beforeAll(async () => {
    server = await startTestPostgres('demo-load', { shared_buffers: '64MB' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  function runScript(extra: Record<string, string>): Promise<FinishedRun> {
    const { host, port, user, password, database } = server.connectionConfig;
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PGHOST: String(host),
      PGPORT: String(port),
      PGUSER: String(user),
      PGPASSWORD: String(password),
      PGDATABASE: String(database),
      ...extra,
    };
    return runToEnd('sh', [SCRIPT], { env });
  }

  /** Bytes of relations read so far (every backend type and context; PostgreSQL 18 counts read_bytes). */
  async function relationBytesRead(): Promise<number> {
    const client = await connect(server);
    try {
      const result = await client.query<{ bytes: string }>(
        `SELECT coalesce(sum(read_bytes), 0)::text AS bytes FROM pg_stat_io WHERE object = 'relation'`,
      );
      return Number(result.rows[0]?.bytes ?? 0);
    } finally {
      await client.end();
    }
  }

  async function tableBytes(): Promise<number> {
    const client = await connect(server);
    try {
      const result = await client.query<{ bytes: string }>(`SELECT pg_relation_size($1::regclass)::text AS bytes`, [
        TABLE,
      ]);
      return Number(result.rows[0]?.bytes ?? 0);
    } finally {
      await client.end();
    }
  }

  it('fills a table larger than shared_buffers once, then scans it in rounds', async () => {
    const rounds = 2;
    const run = await runScript({ DEMO_TABLE_MB: String(TABLE_MB), DEMO_ROUNDS: String(rounds), DEMO_PAUSE_S: '0' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`demo load: filling ${TABLE} with ${TABLE_MB} MB (once)`);
    // Here, as in the compose file, the server's data files are readable: the OS cache is dropped too.
    expect(run.stdout).toContain('evicted from shared buffers and the OS page cache');
    expect(run.stdout).toContain(`demo load: ${rounds} rounds done`);
    expect(await tableBytes()).toBeGreaterThan(TABLE_MB * 1024 * 1024 * 0.9);
  }, 300_000);

  it('keeps the table on the next start, and each scan reads all of it from storage', async () => {
    const bytes = await tableBytes();
    const before = await relationBytesRead();
    const run = await runScript({ DEMO_TABLE_MB: String(TABLE_MB), DEMO_ROUNDS: '1', DEMO_PAUSE_S: '0' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('filling');
    expect(run.stdout).toContain('demo load: 1 rounds done');
    // Two scans in the round, neither served from shared buffers.
    const read = (await relationBytesRead()) - before;
    expect(read).toBeGreaterThanOrEqual(2 * bytes * 0.95);
    expect(read).toBeLessThan(2 * bytes * 1.2);
  }, 120_000);

  it('refuses a size that is not a whole number', async () => {
    const run = await runScript({ DEMO_TABLE_MB: '1e3' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DEMO_TABLE_MB and DEMO_ROUNDS must be whole numbers');
  });
});
