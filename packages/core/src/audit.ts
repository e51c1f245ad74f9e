import type { AuditFinding, AuditLevel } from '@aioscope/spec';
import { AIO_VERSION_NUM, bytesPerSettingUnit, formatBytesLikePostgres } from './settings.ts';
import {
  alterTarget,
  defaultUpgradeTarget,
  roleSettingScope,
  upgradeFindings,
  type UpgradeTargetVersion,
} from './upgradeAudit.ts';

/** One row of AUDIT_SETTINGS_SQL. */
export interface AuditSettingRow {
  name: string;
  setting: string;
  unit: string | null;
  source: string;
  sourcefile: string | null;
  sourceline: number | null;
  boot_val: string | null;
  reset_val: string | null;
}

/** One row of AUDIT_TABLESPACES_SQL. */
export interface AuditTablespaceRow {
  spcname: string;
  spcoptions: string[] | null;
}

/** One row of AUDIT_ROLE_SETTINGS_SQL: an ALTER DATABASE / ROLE … SET, only the settings the rules read. */
export interface AuditRoleSettingRow {
  /** null: for every database (ALTER ROLE … SET). */
  database: string | null;
  /** null: for every role (ALTER DATABASE … SET). */
  role: string | null;
  setconfig: string[] | null;
}

export interface AuditInput {
  versionNum: number;
  settings: AuditSettingRow[];
  tablespaces: AuditTablespaceRow[];
  /** pg_db_role_setting rows; none when not read. */
  roleSettings?: AuditRoleSettingRow[];
  /** pg_config CONFIGURE line, or null when not readable (not superuser). */
  configure: string | null;
  /** The major version the pre-upgrade check is for; by default the next one that changes I/O (18, then 19). */
  targetVersion?: UpgradeTargetVersion;
}

/** Every setting the rules read: the parameter of AUDIT_SETTINGS_SQL. */
export const AUDIT_SETTING_NAMES: readonly string[] = [
  'effective_io_concurrency',
  'maintenance_io_concurrency',
  'io_combine_limit',
  'io_max_combine_limit',
  'io_max_concurrency',
  'io_method',
  'io_workers',
  'io_min_workers',
  'io_max_workers',
  'track_io_timing',
];

const VERSION_19_NUM = 190000;
/** effective_io_concurrency and maintenance_io_concurrency both default to 16 from 18 on. */
const PG18_IO_CONCURRENCY_DEFAULT = 16;
const CONCURRENCY_SETTINGS = ['effective_io_concurrency', 'maintenance_io_concurrency'] as const;
/** What PostgreSQL 17 and older shipped, i.e. what an old postgresql.conf template still carries. */
const PRE18_DEFAULT: Record<(typeof CONCURRENCY_SETTINGS)[number], number> = {
  effective_io_concurrency: 1,
  maintenance_io_concurrency: 10,
};

type Rule = (input: AuditInput) => AuditFinding[];

function findSetting(input: AuditInput, name: string): AuditSettingRow | undefined {
  return input.settings.find((row) => row.name === name);
}

/** "configuration file /etc/postgresql/postgresql.conf:231", or the bare source when the file is hidden. */
function describeSource(row: AuditSettingRow): string {
  if (row.sourcefile === null) return row.source;
  return `${row.source} ${row.sourcefile}${row.sourceline === null ? '' : `:${row.sourceline}`}`;
}

function sizeInBytes(row: AuditSettingRow): number | null {
  const unitBytes = bytesPerSettingUnit(row.unit);
  const value = Number(row.setting);
  return unitBytes === null || !Number.isFinite(value) ? null : value * unitBytes;
}

function displaySize(row: AuditSettingRow): string {
  const bytes = sizeInBytes(row);
  return bytes === null ? row.setting : formatBytesLikePostgres(bytes);
}

/**
 * The verdict shared by the server-wide settings and the tablespace options: an explicit value
 * below 16 is usually a leftover of a pre-18 template, and 1 is the worst such leftover.
 */
function judgeConcurrency(value: number, explicit: boolean, oldDefault: number): { level: AuditLevel; why: string } {
  if (value === 0) return { level: 'info', why: '0 turns off prefetching and AIO look-ahead for these reads' };
  if (explicit && value === 1) {
    return {
      level: 'warn',
      why: '1 is worse than 0 in 18: it allows one I/O in flight but still pays for AIO; use 0 to disable or the default 16',
    };
  }
  if (explicit && value < PG18_IO_CONCURRENCY_DEFAULT) {
    return {
      level: 'warn',
      why: `below the 18 default of 16 (old templates carry ${oldDefault}): at most ${value} I/Os in flight per read stream`,
    };
  }
  return { level: 'pass', why: `up to ${value} I/Os in flight per read stream (18 default: 16)` };
}

const concurrencyRules: Rule[] = CONCURRENCY_SETTINGS.map((name) => (input) => {
  const row = findSetting(input, name);
  if (row === undefined) return [];
  const { level, why } = judgeConcurrency(
    Number(row.setting),
    row.source === 'configuration file',
    PRE18_DEFAULT[name],
  );
  return [{ rule: `${name}_file_override`, title: name, level, value: row.setting, source: describeSource(row), why }];
});

const ioCombineLimitCapped: Rule = (input) => {
  const limit = findSetting(input, 'io_combine_limit');
  if (limit === undefined) return [];
  const max = findSetting(input, 'io_max_combine_limit');
  const limitBytes = sizeInBytes(limit);
  const maxBytes = max === undefined ? null : sizeInBytes(max);
  const base = { rule: 'io_combine_limit_capped', title: 'io_combine_limit', source: describeSource(limit) };
  if (max !== undefined && limitBytes !== null && maxBytes !== null && limitBytes > maxBytes) {
    return [
      {
        ...base,
        level: 'warn',
        value: `${displaySize(limit)} (capped to ${displaySize(max)})`,
        why: `silently capped by io_max_combine_limit: reads are combined up to ${displaySize(max)} only; raising io_max_combine_limit needs a restart`,
      },
    ];
  }
  return [
    {
      ...base,
      level: 'pass',
      value: displaySize(limit),
      why: `adjacent blocks are read in one I/O of up to ${displaySize(limit)}`,
    },
  ];
};

const ioMaxConcurrency: Rule = (input) => {
  const row = findSetting(input, 'io_max_concurrency');
  if (row === undefined) return [];
  const auto = row.setting === '-1';
  // 18 stores the resolved auto value as a default, so "default" with boot_val -1 still means auto.
  const resolvedAuto = !auto && row.source === 'default' && row.boot_val === '-1';
  let why = `at most ${row.setting} I/Os in flight per process, set explicitly`;
  if (auto) why = 'auto: sized from shared_buffers per process, at most 64 I/Os in flight per process';
  else if (resolvedAuto) why = `auto resolved to at most ${row.setting} I/Os in flight per process (auto caps at 64)`;
  return [
    {
      rule: 'io_max_concurrency',
      title: 'io_max_concurrency',
      level: 'info',
      value: auto ? 'auto' : row.setting,
      source: describeSource(row),
      why,
    },
  ];
};

const tablespaceOverrides: Rule = (input) => {
  const findings: AuditFinding[] = [];
  for (const tablespace of input.tablespaces) {
    for (const option of tablespace.spcoptions ?? []) {
      const [name, value = ''] = option.split('=', 2);
      const setting = CONCURRENCY_SETTINGS.find((candidate) => candidate === name);
      if (setting === undefined) continue;
      const verdict = judgeConcurrency(Number(value), true, PRE18_DEFAULT[setting]);
      findings.push({
        rule: 'tablespace_io_concurrency_override',
        title: `${setting} on tablespace ${tablespace.spcname}`,
        // An explicit tablespace value that is fine is still worth seeing: it beats the server setting.
        level: verdict.level === 'pass' ? 'info' : verdict.level,
        value,
        source: `pg_tablespace ${tablespace.spcname}`,
        why: verdict.level === 'pass' ? `overrides the server's ${setting} for this tablespace` : verdict.why,
      });
    }
  }
  if (findings.length > 0) return findings;
  return [
    {
      rule: 'tablespace_io_concurrency_override',
      title: 'tablespace I/O overrides',
      level: 'pass',
      value: 'none',
      source: 'pg_tablespace',
      why: 'no per-tablespace overrides: every tablespace follows the server settings',
    },
  ];
};

/**
 * ALTER DATABASE / ROLE … SET effective_io_concurrency: every session of that database or role
 * starts with it, whatever the server says. Judged like a tablespace option; skipped when the
 * rows were not read.
 */
const roleOverrides: Rule = (input) => {
  if (input.roleSettings === undefined) return [];
  const findings: AuditFinding[] = [];
  for (const row of input.roleSettings) {
    for (const entry of row.setconfig ?? []) {
      const [name, value = ''] = entry.split('=', 2);
      const setting = CONCURRENCY_SETTINGS.find((candidate) => candidate === name);
      if (setting === undefined) continue;
      const verdict = judgeConcurrency(Number(value), true, PRE18_DEFAULT[setting]);
      const scope = roleSettingScope(row);
      findings.push({
        rule: 'role_io_concurrency_override',
        title: `${setting} for ${scope}`,
        level: verdict.level === 'pass' ? 'info' : verdict.level,
        value,
        source: `ALTER ${alterTarget(row)} SET (pg_db_role_setting)`,
        why: verdict.level === 'pass' ? `overrides the server's ${setting} for ${scope}` : verdict.why,
      });
    }
  }
  if (findings.length > 0) return findings;
  return [
    {
      rule: 'role_io_concurrency_override',
      title: 'per-database and per-role I/O overrides',
      level: 'pass',
      value: 'none',
      source: 'pg_db_role_setting',
      why: 'no ALTER DATABASE / ROLE … SET of the I/O concurrency settings: every session follows the server settings',
    },
  ];
};

/** Whether the build links liburing; null when the configure line cannot tell. */
function builtWithLiburing(configure: string | null): boolean | null {
  // Meson builds record no configure line, so an empty one proves nothing.
  if (configure === null || configure.trim() === '') return null;
  return configure.includes('--with-liburing');
}

function workerPoolWhy(input: AuditInput): string {
  if (input.versionNum >= VERSION_19_NUM) {
    const min = findSetting(input, 'io_min_workers')?.setting ?? '?';
    const max = findSetting(input, 'io_max_workers')?.setting ?? '?';
    return `AIO on: ${min}–${max} io workers (io_min_workers/io_max_workers) run reads for every backend`;
  }
  const workers = findSetting(input, 'io_workers')?.setting ?? '?';
  return `AIO on: ${workers} io workers (io_workers) run reads for every backend`;
}

const ioMethod: Rule = (input) => {
  const row = findSetting(input, 'io_method');
  if (row === undefined) return [];
  const base = { rule: 'io_method', title: 'io_method', value: row.setting, source: describeSource(row) };
  if (row.setting === 'sync') {
    return [{ ...base, level: 'warn', why: 'AIO off: every backend reads synchronously' }];
  }
  if (row.setting !== 'io_uring') return [{ ...base, level: 'pass', why: workerPoolWhy(input) }];
  const caveats =
    "containers' default seccomp profile blocks io_uring_setup, and sysctl kernel.io_uring_disabled can forbid it";
  const liburing = builtWithLiburing(input.configure);
  if (liburing === false) {
    return [
      { ...base, level: 'warn', why: 'this build was configured without --with-liburing, so it cannot use io_uring' },
    ];
  }
  const build = liburing ? 'built with liburing' : 'liburing build not checked (pg_config needs superuser)';
  return [{ ...base, level: 'info', why: `io_uring: ${build}; ${caveats}` }];
};

const ioWorkersRemoved: Rule = (input) => {
  if (input.versionNum < VERSION_19_NUM) return [];
  const row = findSetting(input, 'io_workers');
  if (row !== undefined && row.source === 'configuration file') {
    return [
      {
        rule: 'io_workers_removed',
        title: 'io_workers',
        level: 'warn',
        value: row.setting,
        source: describeSource(row),
        why: 'io_workers is gone in 19, replaced by io_min_workers/io_max_workers; remove the line: an unknown setting fails restarts and reloads',
      },
    ];
  }
  return [
    {
      rule: 'io_workers_removed',
      title: 'io_workers',
      level: 'pass',
      value: row?.setting ?? 'not set',
      source: row === undefined ? 'pg_settings' : describeSource(row),
      why: 'no leftover io_workers setting: io_min_workers/io_max_workers size the worker pool',
    },
  ];
};

const trackIoTiming: Rule = (input) => {
  const row = findSetting(input, 'track_io_timing');
  if (row === undefined) return [];
  const on = row.setting === 'on';
  return [
    {
      rule: 'track_io_timing',
      title: 'track_io_timing',
      level: on ? 'pass' : 'warn',
      value: row.setting,
      source: describeSource(row),
      why: on
        ? 'I/O wait is timed: read_time in pg_stat_io and EXPLAIN I/O Timings are filled'
        : 'no I/O wait timings: read_time in pg_stat_io and EXPLAIN I/O Timings stay 0',
    },
  ];
};

const AIO_RULES: readonly Rule[] = [
  ...concurrencyRules,
  ioCombineLimitCapped,
  ioMaxConcurrency,
  tablespaceOverrides,
  roleOverrides,
  ioMethod,
  ioWorkersRemoved,
  trackIoTiming,
];

/**
 * The AIO checklist of this server's settings, then the pre-upgrade check for the next major
 * version (or `targetVersion`). Before 18 there is no current AIO checklist (the settings either do
 * not exist or mean something else there): the pre-upgrade check says what 18 will make of them.
 * On 18+ a rule whose setting is missing from the rows is skipped.
 */
export function auditSettings(input: AuditInput): AuditFinding[] {
  const current = input.versionNum >= AIO_VERSION_NUM ? AIO_RULES.flatMap((rule) => rule(input)) : [];
  const targetVersion = input.targetVersion ?? defaultUpgradeTarget(input.versionNum);
  const upgrade =
    targetVersion === null
      ? []
      : upgradeFindings({
          versionNum: input.versionNum,
          settings: input.settings,
          tablespaces: input.tablespaces,
          roleSettings: input.roleSettings ?? [],
          targetVersion,
        });
  return [...current, ...upgrade];
}
