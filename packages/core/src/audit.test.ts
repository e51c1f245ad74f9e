import type { AuditFinding } from '@aioscope/spec';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_SETTING_NAMES,
  auditSettings,
  type AuditInput,
  type AuditSettingRow,
  type AuditTablespaceRow,
} from './audit.ts';
import type { SettingQueryRow } from './settings.ts';
import { loadFixture } from './testFixtures.ts';

const fixture = loadFixture<{ info: { version_num: number }; settings: SettingQueryRow[] }>('pg18-server-info.json');

/** The recorded rows predate AUDIT_SETTINGS_SQL's extra columns; the defaults are PostgreSQL 18's. */
const BOOT_VALUES: Record<string, string> = { io_max_concurrency: '-1' };

function recordedRows(): AuditSettingRow[] {
  return fixture.settings
    .filter((row) => AUDIT_SETTING_NAMES.includes(row.name))
    .map((row) => ({
      ...row,
      sourceline: null,
      boot_val: BOOT_VALUES[row.name] ?? row.setting,
      reset_val: row.setting,
    }));
}

const CONF = '/etc/postgresql/18/main/postgresql.conf';

function fromFile(setting: string, sourceline = 231): Partial<AuditSettingRow> {
  return { setting, source: 'configuration file', sourcefile: CONF, sourceline };
}

function input(
  overrides: Record<string, Partial<AuditSettingRow> | null> = {},
  rest: Partial<Omit<AuditInput, 'settings'>> = {},
): AuditInput {
  const rows = recordedRows()
    .filter((row) => overrides[row.name] !== null)
    .map((row) => ({ ...row, ...overrides[row.name] }));
  for (const [name, override] of Object.entries(overrides)) {
    if (override === null || rows.some((row) => row.name === name)) continue;
    rows.push({
      name,
      setting: '',
      unit: null,
      source: 'default',
      sourcefile: null,
      sourceline: null,
      boot_val: null,
      reset_val: null,
      ...override,
    });
  }
  return { versionNum: fixture.info.version_num, settings: rows, tablespaces: [], configure: null, ...rest };
}

function findingsOf(findings: AuditFinding[], rule: string): AuditFinding[] {
  return findings.filter((finding) => finding.rule === rule);
}

function only(findings: AuditFinding[], rule: string): AuditFinding {
  const matching = findingsOf(findings, rule);
  expect(matching).toHaveLength(1);
  return matching[0] as AuditFinding;
}

describe('auditSettings on the recorded PostgreSQL 18 server (io_method=worker, defaults)', () => {
  const findings = auditSettings(input());

  it('shows the whole checklist, one finding per rule, with nothing to warn about', () => {
    expect(findings.map((finding) => finding.rule)).toEqual([
      'effective_io_concurrency_file_override',
      'maintenance_io_concurrency_file_override',
      'io_combine_limit_capped',
      'io_max_concurrency',
      'tablespace_io_concurrency_override',
      'io_method',
      'track_io_timing',
      // The pre-upgrade check for 19 (upgradeAudit.ts) follows the checklist of 18.
      'upgrade_io_workers',
      'upgrade_baseline',
    ]);
    expect(findings.filter((finding) => finding.level === 'warn')).toEqual([]);
  });

  it('writes every why on one line', () => {
    for (const finding of findings) expect(finding.why).not.toContain('\n');
  });

  it('reads every setting the rules need in one query', () => {
    expect(AUDIT_SETTING_NAMES).toContain('io_min_workers');
    expect(new Set(AUDIT_SETTING_NAMES).size).toBe(AUDIT_SETTING_NAMES.length);
  });
});

describe('effective_io_concurrency / maintenance_io_concurrency', () => {
  it('passes the default 16', () => {
    const finding = only(auditSettings(input()), 'effective_io_concurrency_file_override');
    expect(finding).toMatchObject({ level: 'pass', value: '16', source: 'default' });
  });

  it('warns when an old template sets effective_io_concurrency = 1: worse than 0', () => {
    const finding = only(
      auditSettings(input({ effective_io_concurrency: fromFile('1') })),
      'effective_io_concurrency_file_override',
    );
    expect(finding.level).toBe('warn');
    expect(finding.value).toBe('1');
    expect(finding.source).toBe(`configuration file ${CONF}:231`);
    expect(finding.why).toContain('worse than 0');
  });

  it("warns when an old template keeps maintenance_io_concurrency at 17's 10", () => {
    const finding = only(
      auditSettings(input({ maintenance_io_concurrency: fromFile('10', 240) })),
      'maintenance_io_concurrency_file_override',
    );
    expect(finding.level).toBe('warn');
    expect(finding.why).toContain('16');
    expect(finding.why).not.toContain('worse than 0');
  });

  it('reports 0 as look-ahead off, not as a mistake', () => {
    const finding = only(
      auditSettings(input({ effective_io_concurrency: fromFile('0') })),
      'effective_io_concurrency_file_override',
    );
    expect(finding.level).toBe('info');
  });

  it('passes a value above the default from a configuration file', () => {
    const finding = only(
      auditSettings(input({ maintenance_io_concurrency: fromFile('64') })),
      'maintenance_io_concurrency_file_override',
    );
    expect(finding.level).toBe('pass');
  });

  it('only blames configuration files: a low value from the command line passes', () => {
    const finding = only(
      auditSettings(input({ effective_io_concurrency: { setting: '1', source: 'command line' } })),
      'effective_io_concurrency_file_override',
    );
    expect(finding.level).toBe('pass');
  });
});

describe('io_combine_limit above io_max_combine_limit', () => {
  it('passes the recorded 128kB under a 128kB maximum', () => {
    const finding = only(auditSettings(input()), 'io_combine_limit_capped');
    expect(finding).toMatchObject({ level: 'pass', value: '128kB' });
  });

  it('warns that 32 blocks are silently capped to 16', () => {
    const finding = only(auditSettings(input({ io_combine_limit: fromFile('32') })), 'io_combine_limit_capped');
    expect(finding.level).toBe('warn');
    expect(finding.value).toBe('256kB (capped to 128kB)');
    expect(finding.why).toContain('capped');
  });
});

describe('io_max_concurrency', () => {
  it('shows the value 18 resolved auto to', () => {
    const finding = only(auditSettings(input()), 'io_max_concurrency');
    expect(finding).toMatchObject({ level: 'info', value: '64' });
    expect(finding.why).toContain('auto');
  });

  it('says auto, and its maximum of 64, when the server shows -1', () => {
    const finding = only(auditSettings(input({ io_max_concurrency: { setting: '-1' } })), 'io_max_concurrency');
    expect(finding.value).toBe('auto');
    expect(finding.why).toContain('64');
  });

  it('shows an explicit value as set', () => {
    const finding = only(auditSettings(input({ io_max_concurrency: fromFile('32') })), 'io_max_concurrency');
    expect(finding).toMatchObject({ level: 'info', value: '32' });
    expect(finding.why).toContain('explicitly');
  });
});

describe('per-tablespace overrides', () => {
  const tablespaces: AuditTablespaceRow[] = [
    { spcname: 'pg_default', spcoptions: null },
    { spcname: 'archive', spcoptions: ['seq_page_cost=2'] },
  ];

  it('passes with one finding when no tablespace overrides the concurrency settings', () => {
    const finding = only(auditSettings(input({}, { tablespaces })), 'tablespace_io_concurrency_override');
    expect(finding).toMatchObject({ level: 'pass', value: 'none' });
  });

  it('flags effective_io_concurrency=1 on a tablespace, and shows a fine override as info', () => {
    const findings = findingsOf(
      auditSettings(
        input(
          {},
          {
            tablespaces: [
              ...tablespaces,
              { spcname: 'fast_ssd', spcoptions: ['effective_io_concurrency=1', 'maintenance_io_concurrency=200'] },
            ],
          },
        ),
      ),
      'tablespace_io_concurrency_override',
    );
    expect(findings).toHaveLength(2);
    expect(findings[0]).toMatchObject({ level: 'warn', value: '1', source: 'pg_tablespace fast_ssd' });
    expect(findings[0]?.why).toContain('worse than 0');
    expect(findings[1]).toMatchObject({ level: 'info', value: '200', source: 'pg_tablespace fast_ssd' });
  });

  it('warns on a tablespace value below 16', () => {
    const findings = findingsOf(
      auditSettings(input({}, { tablespaces: [{ spcname: 'slow', spcoptions: ['maintenance_io_concurrency=10'] }] })),
      'tablespace_io_concurrency_override',
    );
    expect(findings.map((finding) => finding.level)).toEqual(['warn']);
  });
});

describe('per-database and per-role overrides on 18 (pg_db_role_setting)', () => {
  it('is skipped when the rows were not read, and passes with one finding when there are none', () => {
    expect(findingsOf(auditSettings(input()), 'role_io_concurrency_override')).toEqual([]);
    const finding = only(auditSettings(input({}, { roleSettings: [] })), 'role_io_concurrency_override');
    expect(finding).toMatchObject({ level: 'pass', value: 'none', source: 'pg_db_role_setting' });
  });

  it('warns on ALTER DATABASE … SET effective_io_concurrency = 1 and shows a fine role value as info', () => {
    const findings = findingsOf(
      auditSettings(
        input(
          {},
          {
            roleSettings: [
              { database: 'reports', role: null, setconfig: ['effective_io_concurrency=1'] },
              { database: null, role: 'etl', setconfig: ['maintenance_io_concurrency=64'] },
            ],
          },
        ),
      ),
      'role_io_concurrency_override',
    );
    expect(findings).toHaveLength(2);
    expect(findings[0]).toMatchObject({
      level: 'warn',
      title: 'effective_io_concurrency for database reports',
      source: 'ALTER DATABASE reports SET (pg_db_role_setting)',
    });
    expect(findings[0]?.why).toContain('worse than 0');
    expect(findings[1]).toMatchObject({ level: 'info', title: 'maintenance_io_concurrency for role etl', value: '64' });
  });
});

describe('io_method', () => {
  it('passes worker and names the 18 pool size', () => {
    const finding = only(auditSettings(input()), 'io_method');
    expect(finding).toMatchObject({ level: 'pass', value: 'worker', source: 'command line' });
    expect(finding.why).toContain('3 io workers');
  });

  it('warns that sync turns AIO off', () => {
    const finding = only(auditSettings(input({ io_method: fromFile('sync') })), 'io_method');
    expect(finding.level).toBe('warn');
    expect(finding.why).toContain('AIO off');
  });

  it('warns about io_uring on a build configured without --with-liburing', () => {
    const finding = only(
      auditSettings(
        input({ io_method: fromFile('io_uring') }, { configure: " '--prefix=/usr' '--with-openssl' '--with-lz4'" }),
      ),
      'io_method',
    );
    expect(finding.level).toBe('warn');
    expect(finding.why).toContain('--with-liburing');
  });

  it('gives io_uring the seccomp and sysctl caveats on a liburing build', () => {
    const finding = only(
      auditSettings(input({ io_method: fromFile('io_uring') }, { configure: " '--with-liburing' '--with-openssl'" })),
      'io_method',
    );
    expect(finding.level).toBe('info');
    expect(finding.why).toContain('seccomp');
    expect(finding.why).toContain('kernel.io_uring_disabled');
  });

  it('says the liburing build could not be checked without superuser', () => {
    const finding = only(auditSettings(input({ io_method: fromFile('io_uring') })), 'io_method');
    expect(finding.level).toBe('info');
    expect(finding.why).toContain('superuser');
  });
});

describe('io_workers on PostgreSQL 19', () => {
  const pg19 = { io_workers: null, io_min_workers: { setting: '2' }, io_max_workers: { setting: '8' } };

  it('does not apply to 18, where io_workers is the pool size', () => {
    expect(findingsOf(auditSettings(input({ io_workers: fromFile('3') })), 'io_workers_removed')).toEqual([]);
  });

  it('passes a 19 server without io_workers and names the new pool bounds', () => {
    const findings = auditSettings(input(pg19, { versionNum: 190000 }));
    expect(only(findings, 'io_workers_removed').level).toBe('pass');
    expect(only(findings, 'io_method').why).toContain('2–8 io workers');
  });

  it('warns when a configuration file still sets io_workers on 19', () => {
    const finding = only(
      auditSettings(input({ ...pg19, io_workers: fromFile('6', 88) }, { versionNum: 190000 })),
      'io_workers_removed',
    );
    expect(finding.level).toBe('warn');
    expect(finding.source).toBe(`configuration file ${CONF}:88`);
    expect(finding.why).toContain('io_min_workers/io_max_workers');
  });
});

describe('track_io_timing', () => {
  it('passes when on', () => {
    expect(only(auditSettings(input()), 'track_io_timing').level).toBe('pass');
  });

  it('warns when off: no I/O wait timings', () => {
    const finding = only(
      auditSettings(input({ track_io_timing: { setting: 'off', source: 'default' } })),
      'track_io_timing',
    );
    expect(finding.level).toBe('warn');
    expect(finding.why).toContain('read_time in pg_stat_io');
  });
});

describe('servers and rows without asynchronous I/O', () => {
  it('gives way to the pre-upgrade check on PostgreSQL 17: what 18 will make of its settings', () => {
    const findings = auditSettings(
      input(
        {
          io_method: null,
          io_combine_limit: null,
          io_max_combine_limit: null,
          io_max_concurrency: null,
          io_workers: null,
          effective_io_concurrency: fromFile('1'),
        },
        { versionNum: 170000, tablespaces: [{ spcname: 'fast_ssd', spcoptions: ['effective_io_concurrency=1'] }] },
      ),
    );
    expect(findings.map((finding) => finding.rule)).toEqual([
      'upgrade_io_concurrency',
      'upgrade_io_concurrency',
      'upgrade_tablespace_io_concurrency',
      'upgrade_io_method',
      'upgrade_track_io_timing',
      'upgrade_baseline',
    ]);
    for (const finding of findings) expect(finding.title).toMatch(/^before 18: /);
    expect(findings.filter((finding) => finding.level === 'warn').map((finding) => finding.title)).toEqual([
      'before 18: effective_io_concurrency',
      'before 18: effective_io_concurrency on tablespace fast_ssd',
    ]);
  });

  it('skips a rule on 18 whose setting is missing from the rows (e.g. hidden from the role)', () => {
    const findings = auditSettings(input({ io_method: null, io_combine_limit: null, io_max_combine_limit: null }));
    expect(findingsOf(findings, 'io_method')).toEqual([]);
    expect(findingsOf(findings, 'io_combine_limit_capped')).toEqual([]);
    expect(findings.length).toBeGreaterThan(0);
  });

  it('survives no rows at all', () => {
    expect(() => auditSettings({ versionNum: 180004, settings: [], tablespaces: [], configure: null })).not.toThrow();
  });
});
