import type { AuditFinding, AuditLevel } from '@aioscope/spec';
import type { AuditRoleSettingRow, AuditSettingRow, AuditTablespaceRow } from './audit.ts';

/**
 * The pre-upgrade check: what the next major version will do with *this* server's settings, and
 * what to do before the upgrade. Its findings carry "before N:" in their title, so the same
 * rule about the same setting is told apart from the current audit's everywhere (table, metrics,
 * recorded audit changes).
 */

/** The versions a check can be run for: the first with AIO, and the first without io_workers. */
export const UPGRADE_TARGET_VERSIONS = [18, 19] as const;
export type UpgradeTargetVersion = (typeof UPGRADE_TARGET_VERSIONS)[number];

export interface UpgradeAuditInput {
  versionNum: number;
  settings: readonly AuditSettingRow[];
  tablespaces: readonly AuditTablespaceRow[];
  roleSettings: readonly AuditRoleSettingRow[];
  targetVersion: UpgradeTargetVersion;
}

/** The major version a server would be checked against by default; null once there is nothing newer to check for. */
export function defaultUpgradeTarget(versionNum: number): UpgradeTargetVersion | null {
  const major = Math.floor(versionNum / 10000);
  if (major < 18) return 18;
  if (major === 18) return 19;
  return null;
}

const CONCURRENCY_SETTINGS = ['effective_io_concurrency', 'maintenance_io_concurrency'] as const;
type ConcurrencySetting = (typeof CONCURRENCY_SETTINGS)[number];
/** 18 raised both defaults to 16; 16 and 17 shipped 1 and 10, which old templates still carry. */
const NEW_CONCURRENCY_DEFAULT = 16;
const OLD_CONCURRENCY_DEFAULT: Record<ConcurrencySetting, number> = {
  effective_io_concurrency: 1,
  maintenance_io_concurrency: 10,
};
/** 18 caps io_combine_limit at io_max_combine_limit, whose default is 16 blocks (128 kB); 17 allowed up to 32. */
const IO_MAX_COMBINE_LIMIT_DEFAULT_BLOCKS = 16;
/** pg_settings sources that are set per database or role, so the server-wide value is not what the session shows. */
const PER_SESSION_SOURCES = new Set(['database', 'user', 'database user', 'client', 'session']);

/** pg_settings sources of values that ALTER DATABASE / ROLE … SET gave aioscope's own session. */
const PER_SESSION_ORIGINS: Partial<Record<string, string>> = {
  database: "ALTER DATABASE … SET (aioscope's database)",
  user: "ALTER ROLE … SET (aioscope's role)",
  'database user': "ALTER ROLE … IN DATABASE … SET (aioscope's role and database)",
};

function isConcurrencySetting(name: string): name is ConcurrencySetting {
  return (CONCURRENCY_SETTINGS as readonly string[]).includes(name);
}

function findSetting(input: UpgradeAuditInput, name: string): AuditSettingRow | undefined {
  return input.settings.find((row) => row.name === name);
}

/**
 * Where a value comes from, as a DBA would fix it: ALTER SYSTEM writes postgresql.auto.conf, any
 * other file is edited by hand. A role without pg_read_all_settings sees no file name at all.
 */
function describeOrigin(row: AuditSettingRow): string {
  const perSession = PER_SESSION_ORIGINS[row.source];
  if (perSession !== undefined) return perSession;
  if (row.source !== 'configuration file') return row.source;
  if (row.sourcefile === null)
    return 'a configuration file (postgresql.conf or ALTER SYSTEM; its name needs pg_read_all_settings)';
  const place = `${row.sourcefile}${row.sourceline === null ? '' : `:${row.sourceline}`}`;
  return /(^|\/)postgresql\.auto\.conf$/.test(row.sourcefile)
    ? `ALTER SYSTEM (${place})`
    : `configuration file ${place}`;
}

/** What "set it back" means for each origin. */
function resetAdvice(
  name: string,
  origin: 'file' | 'system' | 'database' | 'tablespace' | 'other',
  where = '',
): string {
  switch (origin) {
    case 'system':
      return `ALTER SYSTEM RESET ${name}`;
    case 'file':
      return 'remove the line';
    case 'database':
      return `ALTER ${where} RESET ${name}`;
    case 'tablespace':
      return `ALTER TABLESPACE ${where} RESET (${name})`;
    case 'other':
      return 'remove it from the start command';
  }
}

interface Verdict {
  level: AuditLevel;
  why: string;
}

/** The judgement every explicit effective_io_concurrency / maintenance_io_concurrency gets, wherever it is set. */
function judgeExplicitConcurrency(name: ConcurrencySetting, raw: string, reset: string): Verdict {
  const value = Number(raw);
  if (!Number.isFinite(value)) return { level: 'info', why: `${raw} is not a number PostgreSQL would accept` };
  if (value === 0) {
    return {
      level: 'info',
      why: `set to 0, which 18 keeps: no look-ahead, each read is issued synchronously; to take 18's ${NEW_CONCURRENCY_DEFAULT}: ${reset}`,
    };
  }
  if (value === 1) {
    return {
      level: 'warn',
      why: `set explicitly, so 18 keeps 1 instead of its new default ${NEW_CONCURRENCY_DEFAULT}: one I/O in flight per read stream, and PostgreSQL found that 1 performs worse than 0 with AIO; before the upgrade: ${reset} (or set 0 to turn look-ahead off)`,
    };
  }
  if (value < NEW_CONCURRENCY_DEFAULT) {
    const template = value === OLD_CONCURRENCY_DEFAULT[name] ? ` (${value} is the old default of 16 and 17)` : '';
    return {
      level: 'warn',
      why: `set explicitly, so 18 keeps ${value} instead of its new default ${NEW_CONCURRENCY_DEFAULT}${template}: at most ${value} I/Os in flight per read stream; before the upgrade: ${reset}`,
    };
  }
  return {
    level: 'pass',
    why: `set explicitly to ${value}, at least 18's default of ${NEW_CONCURRENCY_DEFAULT}: 18 keeps it`,
  };
}

function finding(
  targetVersion: UpgradeTargetVersion,
  rule: string,
  title: string,
  rest: Omit<AuditFinding, 'rule' | 'title'>,
): AuditFinding {
  return { rule, title: `before ${targetVersion}: ${title}`, ...rest };
}

type Rule = (input: UpgradeAuditInput) => AuditFinding[];

/** Server-wide effective_io_concurrency / maintenance_io_concurrency (file, ALTER SYSTEM, command line). */
const serverConcurrency: Rule = (input) =>
  CONCURRENCY_SETTINGS.flatMap((name) => {
    const row = findSetting(input, name);
    if (row === undefined) return [];
    const base = { value: row.setting, source: describeOrigin(row) };
    if (row.source === 'default') {
      return [
        finding(input.targetVersion, 'upgrade_io_concurrency', name, {
          ...base,
          level: 'pass',
          why: `not set: 18's default of ${NEW_CONCURRENCY_DEFAULT} applies after the upgrade (${OLD_CONCURRENCY_DEFAULT[name]} before 18)`,
        }),
      ];
    }
    if (PER_SESSION_SOURCES.has(row.source)) {
      return [
        finding(input.targetVersion, 'upgrade_io_concurrency', name, {
          ...base,
          level: 'info',
          why: "aioscope's own session takes a per-database or per-role value (see the pg_db_role_setting findings); the server-wide value is hidden from it",
        }),
      ];
    }
    const origin =
      row.source !== 'configuration file' ? 'other' : base.source.startsWith('ALTER SYSTEM') ? 'system' : 'file';
    return [
      finding(input.targetVersion, 'upgrade_io_concurrency', name, {
        ...base,
        ...judgeExplicitConcurrency(name, row.setting, resetAdvice(name, origin)),
      }),
    ];
  });

/** `ALTER TABLESPACE … SET (effective_io_concurrency = …)`: beats the server setting for that tablespace. */
const tablespaceConcurrency: Rule = (input) =>
  input.tablespaces.flatMap((tablespace) =>
    (tablespace.spcoptions ?? []).flatMap((option) => {
      const [name = '', value = ''] = option.split('=', 2);
      if (!isConcurrencySetting(name)) return [];
      return [
        finding(
          input.targetVersion,
          'upgrade_tablespace_io_concurrency',
          `${name} on tablespace ${tablespace.spcname}`,
          {
            value,
            source: `ALTER TABLESPACE ${tablespace.spcname} (pg_tablespace)`,
            ...judgeExplicitConcurrency(name, value, resetAdvice(name, 'tablespace', tablespace.spcname)),
          },
        ),
      ];
    }),
  );

/** "DATABASE app", "ROLE report", "ROLE report IN DATABASE app": what the ALTER names. */
export function alterTarget(row: AuditRoleSettingRow): string {
  if (row.role === null) return `DATABASE ${row.database ?? '?'}`;
  return row.database === null ? `ROLE ${row.role}` : `ROLE ${row.role} IN DATABASE ${row.database}`;
}

/** "database app", "role report", "role report in database app": for a title. */
export function roleSettingScope(row: AuditRoleSettingRow): string {
  if (row.role === null) return `database ${row.database ?? '?'}`;
  return row.database === null ? `role ${row.role}` : `role ${row.role} in database ${row.database}`;
}

/** `ALTER DATABASE/ROLE … SET`: every session of that database or role starts with it. */
const roleConcurrency: Rule = (input) =>
  input.roleSettings.flatMap((row) =>
    (row.setconfig ?? []).flatMap((entry) => {
      const [name = '', value = ''] = entry.split('=', 2);
      if (!isConcurrencySetting(name)) return [];
      const target = alterTarget(row);
      return [
        finding(input.targetVersion, 'upgrade_role_io_concurrency', `${name} for ${roleSettingScope(row)}`, {
          value,
          source: `ALTER ${target} SET (pg_db_role_setting)`,
          ...judgeExplicitConcurrency(name, value, resetAdvice(name, 'database', target)),
        }),
      ];
    }),
  );

/** 17 accepted io_combine_limit up to 256 kB; 18 silently caps it at io_max_combine_limit (128 kB by default). */
const combineLimit: Rule = (input) => {
  const row = findSetting(input, 'io_combine_limit');
  if (row === undefined || input.versionNum >= 180000) return [];
  const blocks = Number(row.setting);
  const kb = blocks * 8;
  if (blocks <= IO_MAX_COMBINE_LIMIT_DEFAULT_BLOCKS) {
    return [
      finding(input.targetVersion, 'upgrade_io_combine_limit', 'io_combine_limit', {
        value: `${kb}kB`,
        source: describeOrigin(row),
        level: 'pass',
        why: `reads of up to ${kb}kB, within 18's io_max_combine_limit of 128kB: unchanged by the upgrade`,
      }),
    ];
  }
  return [
    finding(input.targetVersion, 'upgrade_io_combine_limit', 'io_combine_limit', {
      value: `${kb}kB`,
      source: describeOrigin(row),
      level: 'warn',
      why: `18 caps it at io_max_combine_limit (default 128kB) without a word: to keep ${kb}kB reads, also set io_max_combine_limit = ${kb}kB (a restart setting) on 18`,
    }),
  ];
};

/** io_method is new in 18 and needs a restart to change: the one decision to make before the test. */
const ioMethodDecision: Rule = (input) => {
  if (input.versionNum >= 180000) return [];
  return [
    finding(input.targetVersion, 'upgrade_io_method', 'io_method', {
      value: 'worker (18 default)',
      source: 'PostgreSQL 18 default',
      level: 'info',
      why: 'decide before the test (a restart setting): worker reads through io workers by default; io_uring needs a PostgreSQL built with liburing (pg_config --configure lists --with-liburing) and is blocked by the default seccomp profiles of Docker and containerd; sync keeps the synchronous reads of 17',
    }),
  ];
};

/** 19 removed io_workers (no alias): a leftover line keeps 19 from starting or reloading its configuration. */
const ioWorkersReplaced: Rule = (input) => {
  if (input.targetVersion < 19 || input.versionNum >= 190000) return [];
  const row = findSetting(input, 'io_workers');
  const replacement =
    'replace it by io_min_workers (default 2) and io_max_workers (default 8): 19 grows the pool between them';
  if (row === undefined || row.source === 'default') {
    return [
      finding(input.targetVersion, 'upgrade_io_workers', 'io_workers', {
        value: row?.setting ?? 'not in this version',
        source: row === undefined ? 'pg_settings' : 'default',
        level: 'pass',
        why: 'not set: nothing to carry over; 19 sizes the io worker pool between io_min_workers (2) and io_max_workers (8)',
      }),
    ];
  }
  // A file is carried over silently by an upgrade (copied, or an old template); a start command is
  // written again by whoever starts the new server, so it is said, not warned about.
  const fromFile = row.source === 'configuration file';
  return [
    finding(input.targetVersion, 'upgrade_io_workers', 'io_workers', {
      value: row.setting,
      source: describeOrigin(row),
      level: fromFile ? 'warn' : 'info',
      why: `io_workers is gone in 19: an unknown setting ${fromFile ? 'in a configuration file fails the start and every reload' : 'on the start command fails the start'}; ${replacement}`,
    }),
  ];
};

/** I/O timings make the before and after comparable on wait time, not only on throughput. */
const trackIoTimingForTest: Rule = (input) => {
  // From 18 on, the current audit's track_io_timing rule says the same.
  if (input.versionNum >= 180000) return [];
  const row = findSetting(input, 'track_io_timing');
  if (row === undefined) return [];
  const on = row.setting === 'on';
  return [
    finding(input.targetVersion, 'upgrade_track_io_timing', 'track_io_timing', {
      value: row.setting,
      source: describeOrigin(row),
      level: on ? 'pass' : 'warn',
      why: on
        ? 'on: read_time in pg_stat_io and EXPLAIN I/O Timings can be compared before and after the upgrade'
        : 'turn it on for the test period, before and after the upgrade (ALTER SYSTEM SET track_io_timing = on; SELECT pg_reload_conf()): without it read_time in pg_stat_io stays 0 and I/O waits cannot be compared',
    }),
  ];
};

/** Nothing measured before the upgrade can be measured after it. */
const recordBaseline: Rule = (input) => [
  finding(input.targetVersion, 'upgrade_baseline', 'baseline', {
    value: `PostgreSQL ${Math.floor(input.versionNum / 10000)}`,
    source: 'aioscope history',
    level: 'info',
    why: `record a baseline now: keep aioscope recording this server through the reads that matter (e.g. the nightly scans) and mark that range as a baseline (kept beyond retention, exportable as a recording file), then Compare it with the same work on ${input.targetVersion}`,
  }),
];

const UPGRADE_RULES: readonly Rule[] = [
  serverConcurrency,
  tablespaceConcurrency,
  roleConcurrency,
  combineLimit,
  ioMethodDecision,
  ioWorkersReplaced,
  trackIoTimingForTest,
  recordBaseline,
];

/**
 * The pre-upgrade findings for moving this server to `targetVersion`; one info finding when the
 * server already runs that version or a newer one. The concurrency rules apply only when crossing
 * 18, where the defaults changed.
 */
export function upgradeFindings(input: UpgradeAuditInput): AuditFinding[] {
  const major = Math.floor(input.versionNum / 10000);
  if (major >= input.targetVersion) {
    return [
      {
        rule: 'upgrade_target',
        title: `before ${input.targetVersion}`,
        level: 'info',
        value: String(major),
        source: 'server_version_num',
        why: `this server already runs PostgreSQL ${major}: nothing to check before upgrading to ${input.targetVersion}`,
      },
    ];
  }
  const crossing18 = major < 18;
  return UPGRADE_RULES.filter(
    (rule) => crossing18 || (rule !== serverConcurrency && rule !== tablespaceConcurrency && rule !== roleConcurrency),
  ).flatMap((rule) => rule(input));
}
