import { labSessionSettingsSchema } from '@aioscope/spec';
import { QUERY_TAG } from './sql.ts';

/**
 * Every SQL text the scan lab sends, and how long each kind of session may let one statement run.
 * Tagged like the monitor's own queries, so a DBA finds the lab in pg_stat_activity. No user text
 * is ever spliced in: table names come from a validated integer, setting names from a fixed list,
 * values travel as parameters.
 */

/** The lab's own schema: it creates and drops nothing outside it. */
export const LAB_SCHEMA = 'aioscope_lab';

export function labTableName(tableMb: number): string {
  if (!Number.isInteger(tableMb) || tableMb <= 0) throw new Error(`not a lab table size: ${tableMb}`);
  return `${LAB_SCHEMA}.scan_${tableMb}mb`;
}

/** Statement timeout of the control session: catalog lookups, eviction, counters. All short. */
export const LAB_CONTROL_TIMEOUT_MS = 30_000;

/**
 * A statement that reads or writes the whole table, once per MB: 250 ms/MB is 4 MB/s, i.e. 512
 * synchronous 8 kB reads a second (io_combine_limit = 1 without read-ahead on a network volume at
 * ~2 ms a read), the slowest scan a lab variant is meant to measure. A variant slower than that is
 * cut by its statement_timeout instead of holding the lab for ever; anything faster is never cut,
 * so a slow variant is measured, not reported as an error. The fixed minute covers planning,
 * connection and a busy machine on small tables. Cancel is there for the impatient.
 */
const WHOLE_TABLE_MS_PER_MB = 250;
const WHOLE_TABLE_FIXED_MS = 60_000;

/** Statement timeout of the run session, whose EXPLAIN (ANALYZE) reads the whole table cold. */
export function labScanTimeoutMs(tableMb: number): number {
  return WHOLE_TABLE_FIXED_MS + tableMb * WHOLE_TABLE_MS_PER_MB;
}

/**
 * Statement timeout of the build session: CREATE TABLE AS writes the table, VACUUM (FREEZE) reads
 * and rewrites its pages once more, a warm-up reads it again. Each statement is one of those
 * passes, and writing is the slower, so twice the scan's budget.
 */
export function labBuildTimeoutMs(tableMb: number): number {
  return 2 * labScanTimeoutMs(tableMb);
}

/** A lab session's own backend, to cancel it from another session. */
export const LAB_BACKEND_PID_SQL = `${QUERY_TAG} SELECT pg_backend_pid() AS pid`;

/** Cancels the statement each listed backend runs now (an idle one ignores it). */
export const LAB_CANCEL_BACKENDS_SQL = `${QUERY_TAG} SELECT pid, pg_cancel_backend(pid) AS cancelled
  FROM unnest($1::int[]) AS pid`;

/** $1: the table name (schema-qualified). */
export const LAB_TABLE_EXISTS_SQL = `${QUERY_TAG} SELECT to_regclass($1) IS NOT NULL AS found`;

/**
 * One round trip on a fresh run session: its pid (to read its own I/O counters), the server's
 * version, block size (EXPLAIN IO's I/O sizes are in blocks) and io_method, and the two settings every run needs: one process scans (no parallel
 * workers to spread reads over) and every scan starts at block 0 (no joining another scan mid-table).
 */
export const LAB_RUN_SESSION_SETUP_SQL = `${QUERY_TAG} SELECT pg_backend_pid() AS pid,
  current_setting('server_version_num')::int AS version_num,
  current_setting('block_size')::int AS block_size,
  current_setting('io_method', true) AS io_method,
  current_setting('debug_io_direct', true) AS io_direct,
  set_config('max_parallel_workers_per_gather', '0', false) AS parallel,
  set_config('synchronize_seqscans', 'off', false) AS synchronize`;

/** I/O read time in EXPLAIN needs it; only a superuser or a granted role may set it, so it may fail. */
export const LAB_TRACK_IO_TIMING_SQL = `${QUERY_TAG} SELECT set_config('track_io_timing', 'on', false)`;

/** $1: a setting name from labSessionSettingsSchema, $2: its value as text. */
export const LAB_SET_SESSION_SETTING_SQL = `${QUERY_TAG} SELECT set_config($1, $2, false)`;

const SESSION_SETTING_NAMES = new Set(Object.keys(labSessionSettingsSchema.shape));

/** Parameters for LAB_SET_SESSION_SETTING_SQL, one pair per setting a variant sets. */
export function labSessionSettingParams(settings: Readonly<Record<string, number | undefined>>): [string, string][] {
  return Object.entries(settings).flatMap(([name, value]): [string, string][] => {
    if (value === undefined) return [];
    if (!SESSION_SETTING_NAMES.has(name) || !Number.isInteger(value)) {
      throw new Error(`not a lab session setting: ${name} = ${String(value)}`);
    }
    return [[name, String(value)]];
  });
}

/** The measured statement. IO (per-node I/O) exists from PostgreSQL 19. */
export function labExplainSql(tableName: string, versionNum: number): string {
  const options =
    versionNum >= 190000
      ? 'ANALYZE, BUFFERS, TIMING OFF, IO, FORMAT JSON'
      : 'ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON';
  return `${QUERY_TAG} EXPLAIN (${options}) SELECT count(*) FROM ${tableName}`;
}

/** A run's counters reach shared memory when its session goes idle; this makes it happen now. */
export const LAB_FORCE_FLUSH_SQL = `${QUERY_TAG} SELECT pg_stat_force_next_flush()`;

/** $1: pid. A backend's relation reads so far (pg_stat_get_backend_io, PostgreSQL 18+). */
export const LAB_BACKEND_READS_SQL = `${QUERY_TAG} SELECT sum(reads)::float8 AS reads, sum(read_bytes)::float8 AS read_bytes
  FROM pg_stat_get_backend_io($1) WHERE object = 'relation'`;

/** $1: the table name. Drops the table's pages from shared buffers (pg_buffercache 1.6, PostgreSQL 18). */
export const LAB_EVICT_RELATION_SQL = `${QUERY_TAG} SELECT pg_buffercache_evict_relation($1::regclass)`;

/** Warm-up: one process reads the table once, so the OS page cache holds it. */
export const LAB_WARM_UP_SETUP_SQL = `${QUERY_TAG} SELECT set_config('max_parallel_workers_per_gather', '0', false)`;

export function labWarmUpSql(tableName: string): string {
  return `${QUERY_TAG} SELECT count(*) FROM ${tableName}`;
}

/** On a user's server the lab leaves nothing behind that it created: the table, then its schema if empty. */
export function labDropSql(tableName: string): string[] {
  return [`${QUERY_TAG} DROP TABLE IF EXISTS ${tableName}`, `${QUERY_TAG} DROP SCHEMA IF EXISTS ${LAB_SCHEMA}`];
}
