import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { EmbeddedPostgresServer } from '../src/plugins/embeddedPostgres.ts';
import { runCli, waitForUrl } from './support/cliProcess.ts';
import { connect, freePort, startTestPostgres } from './support/testPostgres.ts';

function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('command line against a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;
  let url: string;

  beforeAll(async () => {
    server = await startTestPostgres('cli');
    admin = await connect(server);
    const { user, password, port } = server.connectionConfig;
    url = `postgres://${String(user)}:${String(password)}@127.0.0.1:${String(port)}/postgres`;
  });

  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it.each([
    [['--db', 'mysql://root@localhost/db'], /--db must start with postgres:\/\//],
    [['--rate', '500'], /--rate must be at most 100/],
    [['--port', 'eighty'], /--port must be a number/],
    [['--unknown-flag'], /Unknown option '--unknown-flag'/],
  ])('rejects %j: one line, exit code 2', async (args, pattern) => {
    const run = runCli(args);
    expect(await run.exited).toBe(2);
    expectOneLineError(run.stderr(), pattern);
  });

  it('rejects an unreachable --db: one line naming the problem, exit code 2', async () => {
    const closedPort = await freePort();
    const run = runCli(['--db', `postgres://nobody@127.0.0.1:${closedPort}/x`]);
    expect(await run.exited).toBe(2);
    expectOneLineError(
      run.stderr(),
      new RegExp(`cannot connect to nobody@127\\.0\\.0\\.1:${closedPort}/x: connection refused`),
    );
  });

  it('rejects a wrong password without echoing it', async () => {
    const run = runCli(['--db', url.replace(/:[^:@/]+@/, ':not-the-password@')]);
    expect(await run.exited).toBe(2);
    expectOneLineError(run.stderr(), /authentication failed/);
    expect(run.stderr()).not.toContain('not-the-password');
  });

  it('says so when the port is in use', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      const run = runCli(['--db', url, '--port', String(port)]);
      expect(await run.exited).toBe(2);
      expectOneLineError(run.stderr(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      blocker.close();
    }
  });

  it('watches --db, runs nothing on it, keeps the password from the browser, and stops on SIGTERM', async () => {
    const run = runCli(['--db', url, '--port', '0']);
    try {
      const base = await waitForUrl(run);
      expect(new URL(base).hostname).toBe('127.0.0.1');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const targets = await (await fetch(new URL('/api/targets', base))).text();
      const parsed = JSON.parse(targets) as { kind: string; demoWorkload: boolean; status: { state: string } }[];
      expect(parsed[0]?.kind).toBe('external');
      expect(parsed[0]?.demoWorkload).toBe(false);
      expect(parsed[0]?.status.state).toBe('live');
      const password = String(server.connectionConfig.password);
      expect(targets).not.toContain(password);
      const sessions = await admin.query<{ count: string }>(
        `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'aioscope'`,
      );
      expect(Number(sessions.rows[0]?.count)).toBeGreaterThan(0);
      const demo = await admin.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'aioscope_demo'`);
      expect(demo.rowCount, 'nothing created on a watched server').toBe(0);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });
});
