import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { runCli, waitForUrl } from './support/cliProcess.ts';
import { waitUntil } from './support/polling.ts';
import { TEST_DATA_ROOT, connect, freePort, startTestPostgres } from './support/testPostgres.ts';

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
    // A data folder that cannot be made: said at once, not a plugin's timeout or a retry forever.
    [['--data-dir', '/proc/aioscope-nope'], /--data-dir \/proc\/aioscope-nope cannot be used: ENOENT/],
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

  describe('a --db without a password in it', () => {
    let home: string;
    let noPassword: string;
    beforeAll(() => {
      // An empty home: the developer's own ~/.pgpass must not answer for the test.
      home = mkdtempSync(path.join(tmpdir(), 'aioscope-cli-home-'));
      noPassword = url.replace(/:[^:@/]+@/, '@');
    });
    afterAll(() => rmSync(home, { recursive: true, force: true }));

    it('says which password is missing and where aioscope looked', async () => {
      const run = runCli(['--db', noPassword], { HOME: home });
      expect(await run.exited).toBe(2);
      const user = String(server.connectionConfig.user);
      expectOneLineError(
        run.stderr(),
        new RegExp(`wants a password for ${user}@127\\.0\\.0\\.1:${String(server.connectionConfig.port)}/postgres`),
      );
      expect(run.stderr()).toContain('PGPASSWORD is not set');
      expect(run.stderr()).toContain(`${path.join(home, '.pgpass')} does not exist`);
      expect(run.stderr()).toMatch(/~\/\.pgpass.*PGPASSFILE/);
      expect(run.stderr()).not.toContain('SASL');
    });

    it('uses the password file PGPASSFILE names, without a deprecation warning', async () => {
      const passFile = path.join(home, 'pgpass');
      const { user, password, port } = server.connectionConfig;
      writeFileSync(passFile, `127.0.0.1:${String(port)}:postgres:${String(user)}:${String(password)}\n`, {
        mode: 0o600,
      });
      const run = runCli(['--db', noPassword, '--port', '0'], { HOME: home, PGPASSFILE: passFile });
      try {
        const base = await waitForUrl(run);
        await waitUntil(
          async () => {
            const targets = (await (await fetch(new URL('/api/targets', base))).json()) as {
              status: { state: string };
            }[];
            return targets[0]?.status.state === 'live';
          },
          30_000,
          'the target to go live',
          200,
        );
        expect(run.stderr()).not.toMatch(/deprecat|pgpass support/i);
      } finally {
        run.child.kill('SIGTERM');
      }
      expect(await run.exited).toBe(0);
    });
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

  it('with --wait-for-db, starts against a server that is down, shows why, and goes live when it comes up', async () => {
    const port = await freePort();
    const rootDir = path.join(TEST_DATA_ROOT, 'cli-late');
    await rm(rootDir, { recursive: true, force: true });
    // Create the late server once to learn its credentials, then take it down.
    const created = await EmbeddedPostgresServer.start({ rootDir, port });
    const { user, password } = created.connectionConfig;
    await created.stop();
    const run = runCli([
      '--db',
      `postgres://${String(user)}:${String(password)}@127.0.0.1:${port}/postgres`,
      '--wait-for-db',
      '--port',
      '0',
    ]);
    let late: EmbeddedPostgresServer | null = null;
    try {
      const base = await waitForUrl(run);
      const status = async (): Promise<{ state: string; message: string | null }> =>
        (
          (await (await fetch(new URL('/api/targets', base))).json()) as {
            status: { state: string; message: string | null };
          }[]
        )[0]?.status ?? { state: 'missing', message: null };
      await waitUntil(
        async () => /connection refused/.test((await status()).message ?? ''),
        10_000,
        'the refused connection in the status',
        100,
      );
      const down = await status();
      expect(down.state).toBe('connecting');
      expect(down.message).toMatch(/connection refused/);
      expect(run.stderr()).toMatch(/retrying \(--wait-for-db\)/);
      late = await EmbeddedPostgresServer.start({ rootDir, port });
      await waitUntil(async () => (await status()).state === 'live', 10_000, 'live once the server is up', 200);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      await late?.stop();
    }
  });

  it('reports a killed embedded server and exits, and the next start recovers', async () => {
    const dataDir = path.join(TEST_DATA_ROOT, 'cli-kill');
    await rm(dataDir, { recursive: true, force: true });
    const first = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', dataDir]);
    await waitForUrl(first);
    const pidFile = path.join(dataDir, 'pg18/data/postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const code = await Promise.race([
      first.exited,
      new Promise((resolve) => setTimeout(() => resolve('hung'), 15_000)),
    ]);
    expect(code).toBe(1);
    expect(first.stderr()).toMatch(/embedded PostgreSQL server stopped unexpectedly/);
    const second = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', dataDir]);
    try {
      await waitForUrl(second);
      // A third instance on the same folder must not take over the running one's server.
      const third = runCli(['--embedded', '--no-demo', '--port', '0', '--data-dir', dataDir]);
      expect(await third.exited).toBe(1);
      expect(third.stderr()).toMatch(/another aioscope \(pid \d+\) is using .*--data-dir/);
      expect((await fetch(new URL('/api/targets', await waitForUrl(second)))).status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exited).toBe(0);
  });

  it('watches --db, runs nothing on it, keeps the password from the browser, and stops on SIGTERM', async () => {
    const run = runCli(['--db', url, '--port', '0']);
    try {
      const base = await waitForUrl(run);
      expect(new URL(base).hostname).toBe('127.0.0.1');
      const targetsText = async (): Promise<string> => (await fetch(new URL('/api/targets', base))).text();
      await waitUntil(async () => (await targetsText()).includes('"state":"live"'), 10_000, 'the target live', 100);
      const targets = await targetsText();
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

  it('reads sslmode as psql does: require encrypts without checking a self-signed certificate, verify-full checks it', async () => {
    // A self-signed certificate, as servers watched with sslmode=require often have; the server
    // reads it from its data folder as its own OS user.
    const [key, certificate] = [path.join(server.dataDir, 'server.key'), path.join(server.dataDir, 'server.crt')];
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=aioscope-test'].concat([
        '-keyout',
        key,
        '-out',
        certificate,
      ]),
      { stdio: 'ignore' },
    );
    const { uid, gid } = statSync(server.dataDir);
    for (const file of [key, certificate]) chownSync(file, uid, gid);
    chmodSync(key, 0o600);
    await admin.query('ALTER SYSTEM SET ssl = on');
    await admin.query('SELECT pg_reload_conf()');
    try {
      const run = runCli(['--db', `${url}?sslmode=require`, '--port', '0']);
      try {
        const base = await waitForUrl(run);
        const live = async (): Promise<boolean> =>
          (await (await fetch(new URL('/api/targets', base))).text()).includes('"state":"live"');
        await waitUntil(live, 10_000, 'the target live over TLS', 100);
        const sessions = await admin.query<{ sessions: string; encrypted: boolean }>(
          `SELECT count(*) AS sessions, bool_and(s.ssl) AS encrypted
             FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = 'aioscope'`,
        );
        expect(Number(sessions.rows[0]?.sessions)).toBeGreaterThan(0);
        expect(sessions.rows[0]?.encrypted).toBe(true);
        // Nothing but aioscope's own lines: no library warning about how it reads sslmode.
        expect(run.stderr()).not.toMatch(/warning/i);
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
      const strict = runCli(['--db', `${url}?sslmode=verify-full`, '--port', '0']);
      expect(await strict.exited).toBe(2);
      expectOneLineError(strict.stderr(), /cannot connect to .*self-signed certificate/);
    } finally {
      await admin.query('ALTER SYSTEM RESET ssl');
      await admin.query('SELECT pg_reload_conf()');
    }
  });
});
