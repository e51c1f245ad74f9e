import type { AuditFinding } from '@aioscope/spec';
import { describe, expect, it } from 'vitest';
import { auditSettings, type AuditRoleSettingRow, type AuditSettingRow, type AuditTablespaceRow } from './audit.ts';
import { loadFixture } from './testFixtures.ts';
import { defaultUpgradeTarget, upgradeFindings } from './upgradeAudit.ts';

/** What AUDIT_*_SQL returned on a real PostgreSQL 17.10 (see fixtures/README.md for its settings). */
interface RecordedSession {
  role: string;
  server: { t: number; version_num: number }[];
  settings: AuditSettingRow[];
  tablespaces: AuditTablespaceRow[];
  roleSettings: AuditRoleSettingRow[];
}
const recorded = loadFixture<{ pgMonitor: RecordedSession; noGrantsInApp: RecordedSession }>('pg17.10-audit.json');

function auditOf(session: RecordedSession, targetVersion?: 18 | 19): AuditFinding[] {
  return auditSettings({
    versionNum: session.server[0]?.version_num ?? 0,
    settings: session.settings,
    tablespaces: session.tablespaces,
    roleSettings: session.roleSettings,
    configure: null,
    ...(targetVersion === undefined ? {} : { targetVersion }),
  });
}

function byTitle(findings: AuditFinding[], title: string): AuditFinding {
  const found = findings.filter((finding) => finding.title === title);
  expect(found, findings.map((finding) => finding.title).join('\n')).toHaveLength(1);
  return found[0] as AuditFinding;
}

describe('the pre-upgrade check on the recorded PostgreSQL 17 (pg_monitor role)', () => {
  const findings = auditOf(recorded.pgMonitor);

  it('checks against 18 by default, every finding titled so', () => {
    expect(recorded.pgMonitor.server[0]?.version_num).toBe(170010);
    expect(findings.length).toBeGreaterThan(5);
    for (const finding of findings) expect(finding.title).toMatch(/^before 18: /);
    expect(findings.map((finding) => finding.rule)).not.toContain('aio_unavailable');
  });

  it("warns that the postgresql.conf line effective_io_concurrency = 1 will cancel 18's 16, with its file and line", () => {
    const finding = byTitle(findings, 'before 18: effective_io_concurrency');
    expect(finding).toMatchObject({
      rule: 'upgrade_io_concurrency',
      level: 'warn',
      value: '1',
      source: 'configuration file /var/lib/postgresql/17/main/postgresql.conf:848',
    });
    expect(finding.why).toContain('instead of its new default 16');
    expect(finding.why).toContain('1 performs worse than 0');
    expect(finding.why).toContain('remove the line');
  });

  it('says per tablespace what to reset, and leaves other tablespace options alone', () => {
    const finding = byTitle(findings, 'before 18: effective_io_concurrency on tablespace fast');
    expect(finding).toMatchObject({ level: 'warn', value: '1', source: 'ALTER TABLESPACE fast (pg_tablespace)' });
    expect(finding.why).toContain('ALTER TABLESPACE fast RESET (effective_io_concurrency)');
    expect(findings.filter((f) => f.rule === 'upgrade_tablespace_io_concurrency')).toHaveLength(1);
  });

  it('reads ALTER DATABASE / ROLE … SET from pg_db_role_setting, each with its own verdict', () => {
    const database = byTitle(findings, 'before 18: effective_io_concurrency for database app');
    expect(database).toMatchObject({
      level: 'warn',
      value: '2',
      source: 'ALTER DATABASE app SET (pg_db_role_setting)',
    });
    expect(database.why).toContain('ALTER DATABASE app RESET effective_io_concurrency');
    const role = byTitle(findings, 'before 18: maintenance_io_concurrency for role mon');
    expect(role).toMatchObject({ level: 'warn', value: '1' });
    expect(role.why).toContain('worse than 0');
    const both = byTitle(findings, 'before 18: effective_io_concurrency for role mon in database app');
    expect(both).toMatchObject({
      level: 'info',
      value: '0',
      source: 'ALTER ROLE mon IN DATABASE app SET (pg_db_role_setting)',
    });
  });

  it("says the session's own per-role value hides the server-wide one, instead of judging it as the server's", () => {
    const finding = byTitle(findings, 'before 18: maintenance_io_concurrency');
    expect(finding).toMatchObject({ level: 'info', source: "ALTER ROLE … SET (aioscope's role)" });
    expect(finding.why).toContain('pg_db_role_setting');
  });

  it('warns that ALTER SYSTEM io_combine_limit = 256kB will be capped at 128kB by 18', () => {
    const finding = byTitle(findings, 'before 18: io_combine_limit');
    expect(finding).toMatchObject({ level: 'warn', value: '256kB' });
    expect(finding.source).toBe('ALTER SYSTEM (/var/lib/postgresql/17/main/postgresql.auto.conf:4)');
    expect(finding.why).toContain('io_max_combine_limit');
  });

  it('asks for an io_method decision, naming liburing and the seccomp profiles', () => {
    const finding = byTitle(findings, 'before 18: io_method');
    expect(finding.level).toBe('info');
    expect(finding.why).toContain('liburing');
    expect(finding.why).toContain('Docker and containerd');
  });

  it('asks for track_io_timing during the test period and for a baseline now', () => {
    expect(byTitle(findings, 'before 18: track_io_timing')).toMatchObject({ level: 'warn', value: 'off' });
    expect(byTitle(findings, 'before 18: baseline').why).toContain('record a baseline now');
  });

  it('says nothing about io_workers when checking for 18, and asks to replace it when checking for 19', () => {
    expect(findings.filter((f) => f.rule === 'upgrade_io_workers')).toEqual([]);
    const for19 = auditOf(recorded.pgMonitor, 19);
    const workers = byTitle(for19, 'before 19: io_workers');
    expect(workers.level).toBe('pass');
    expect(workers.why).toContain('io_min_workers');
    // Crossing 18 on the way to 19 still changes the defaults.
    expect(byTitle(for19, 'before 19: effective_io_concurrency').level).toBe('warn');
  });
});

describe('the pre-upgrade check for a role without grants, connected to database app', () => {
  const findings = auditOf(recorded.noGrantsInApp);

  it('reads every source but pg_config, and says the file is hidden rather than inventing one', () => {
    expect(recorded.noGrantsInApp.roleSettings.length).toBe(3);
    const combine = byTitle(findings, 'before 18: io_combine_limit');
    expect(combine.source).toContain('needs pg_read_all_settings');
    expect(byTitle(findings, 'before 18: effective_io_concurrency for database app').level).toBe('warn');
  });
});

describe('defaults and explicit targets', () => {
  const setting = (name: string, value: string, source = 'default'): AuditSettingRow => ({
    name,
    setting: value,
    unit: null,
    source,
    sourcefile: source === 'configuration file' ? '/etc/postgresql/16/main/postgresql.conf' : null,
    sourceline: source === 'configuration file' ? 12 : null,
    boot_val: value,
    reset_val: value,
  });

  it('checks 16 and 17 against 18, 18 against 19, and nothing after 19', () => {
    expect([160004, 170010, 180004, 190000].map(defaultUpgradeTarget)).toEqual([18, 18, 19, null]);
  });

  it('passes the old defaults left alone: 18 brings its own', () => {
    const findings = upgradeFindings({
      versionNum: 160004,
      settings: [setting('effective_io_concurrency', '1'), setting('maintenance_io_concurrency', '10')],
      tablespaces: [],
      roleSettings: [],
      targetVersion: 18,
    });
    expect(findings.filter((f) => f.rule === 'upgrade_io_concurrency').map((f) => f.level)).toEqual(['pass', 'pass']);
  });

  it("warns on 17's maintenance_io_concurrency = 10 from a file and passes 32", () => {
    const findings = upgradeFindings({
      versionNum: 170010,
      settings: [
        setting('maintenance_io_concurrency', '10', 'configuration file'),
        setting('effective_io_concurrency', '32', 'configuration file'),
      ],
      tablespaces: [],
      roleSettings: [],
      targetVersion: 18,
    });
    expect(byTitle(findings, 'before 18: maintenance_io_concurrency')).toMatchObject({ level: 'warn' });
    expect(byTitle(findings, 'before 18: maintenance_io_concurrency').why).toContain('old default of 16 and 17');
    expect(byTitle(findings, 'before 18: effective_io_concurrency').level).toBe('pass');
  });

  it('on 18, warns about io_workers in a configuration file before 19 and only says it for a start command', () => {
    const fromFile = upgradeFindings({
      versionNum: 180004,
      settings: [setting('io_workers', '6', 'configuration file')],
      tablespaces: [],
      roleSettings: [],
      targetVersion: 19,
    });
    expect(byTitle(fromFile, 'before 19: io_workers')).toMatchObject({ level: 'warn', value: '6' });
    const fromCommandLine = upgradeFindings({
      versionNum: 180004,
      settings: [setting('io_workers', '3', 'command line')],
      tablespaces: [],
      roleSettings: [],
      targetVersion: 19,
    });
    expect(byTitle(fromCommandLine, 'before 19: io_workers').level).toBe('info');
    // 18's own audit already judges the concurrency settings.
    expect(fromFile.filter((f) => f.rule === 'upgrade_io_concurrency')).toEqual([]);
  });

  it('says there is nothing to check when the server already runs the target version', () => {
    const findings = upgradeFindings({
      versionNum: 190000,
      settings: [],
      tablespaces: [],
      roleSettings: [],
      targetVersion: 18,
    });
    expect(findings).toEqual([expect.objectContaining({ rule: 'upgrade_target', level: 'info' })]);
  });
});
