/**
 * Every SQL text aioscope sends, one constant per source. Each is tagged so a DBA can find the
 * monitor's own queries in pg_stat_activity, and each reads the server's clock so rates are computed
 * over server time, never over the time the result happened to arrive.
 */

import { AIO_WAIT_EVENTS } from '@aioscope/spec';

export const QUERY_TAG = '/* aioscope */';

/**
 * Wait events that bring a process into the fast tick, beyond io workers themselves (selected by
 * backend_type, so their idle IoWorkerMain is not needed here).
 */
const AIO_WAITS_SQL_LIST = AIO_WAIT_EVENTS.filter((name) => name !== 'IoWorkerMain')
  .map((name) => `'${name}'`)
  .join(', ');

/**
 * Per-tick process columns, in the order parseProcessSample reads them: only what a frame and the
 * scan map need. Read from pg_stat_get_activity(NULL), which the pg_stat_activity view wraps with
 * joins to pg_database and pg_authid that the tick does not need; names and query texts come from
 * PROCESS_DETAILS_SQL at 2 Hz (npm run bench: 197 → 163 µs of backend CPU per tick).
 */
const PROCESS_SAMPLE_COLUMNS = `json_build_array(s.pid, s.backend_type, s.wait_event_type, s.wait_event,
    (extract(epoch FROM s.query_start) * 1000)::float8)`;

/** pg_aios, read once per tick (MATERIALIZED): it feeds both the I/O list and the choice of processes. */
const AIOS_CTE = `a AS MATERIALIZED (
    SELECT pid, io_id, io_generation, state, operation, length, handle_data_len, f_sync, f_localmem, target_desc FROM pg_aios)`;
const TICK_TIME_COLUMN = `(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t`;
const AIOS_COLUMN = `(SELECT coalesce(json_agg(json_build_array(pid, io_id, io_generation, state, operation, length, handle_data_len, f_sync, f_localmem, target_desc)), '[]'::json)
     FROM a) AS aios`;
/** The tick's processes, beyond those with reads in flight: io workers and AIO-related waits. */
const TICK_PROCESS_FILTER = `s.backend_type = 'io worker' OR s.wait_event IN (${AIO_WAITS_SQL_LIST})`;

/**
 * Fast tick with pg_aios (PostgreSQL 18+, role can execute pg_get_aios()). pg_aios is read once
 * (MATERIALIZED) and feeds both the I/O list and the choice of processes: every io worker (never
 * filtered by state or datname, which drops them), every process with reads in flight, and every
 * process in an AIO-related wait. Compact arrays keep the 20-100 Hz payload small.
 */
export const FAST_TICK_SQL = `${QUERY_TAG} WITH ${AIOS_CTE}
  SELECT ${TICK_TIME_COLUMN},
  ${AIOS_COLUMN},
  (SELECT coalesce(json_agg(${PROCESS_SAMPLE_COLUMNS}), '[]'::json)
     FROM pg_stat_get_activity(NULL) s
    WHERE ${TICK_PROCESS_FILTER} OR s.pid IN (SELECT pid FROM a)) AS procs`;

/** Fast tick without pg_aios: older servers, or a role without pg_read_all_stats. */
export const FAST_TICK_WITHOUT_AIOS_SQL = `${QUERY_TAG} SELECT ${TICK_TIME_COLUMN},
  NULL::json AS aios,
  (SELECT coalesce(json_agg(${PROCESS_SAMPLE_COLUMNS}), '[]'::json)
     FROM pg_stat_get_activity(NULL) s
    WHERE ${TICK_PROCESS_FILTER}) AS procs`;

/**
 * PROCESS_DETAILS_SQL's columns for the tick's processes (CTE p), one JSON object per process,
 * from the same activity snapshot: a backend reads the activity of all others once per transaction.
 */
const DETAILS_COLUMN = `(SELECT coalesce(json_agg(json_build_object('pid', pid, 'datid', datid, 'datname', datname,
    'usename', usename, 'state', state, 'query', left(query, 200), 'leader_pid', leader_pid)), '[]'::json)
     FROM pg_stat_activity WHERE pid IN (SELECT pid FROM p)) AS details`;

/**
 * The fast tick with the processes' details in the same round trip (column `details`, rows of
 * PROCESS_DETAILS_SQL), sent when the processes table is due (2 Hz) instead of a second query.
 */
export const FAST_TICK_WITH_DETAILS_SQL = `${QUERY_TAG} WITH ${AIOS_CTE},
  p AS MATERIALIZED (SELECT pid, backend_type, wait_event_type, wait_event, query_start FROM pg_stat_get_activity(NULL) s
    WHERE ${TICK_PROCESS_FILTER} OR s.pid IN (SELECT pid FROM a))
  SELECT ${TICK_TIME_COLUMN},
  ${AIOS_COLUMN},
  (SELECT coalesce(json_agg(${PROCESS_SAMPLE_COLUMNS}), '[]'::json) FROM p s) AS procs,
  ${DETAILS_COLUMN}`;

/** FAST_TICK_WITHOUT_AIOS_SQL with the processes' details (see FAST_TICK_WITH_DETAILS_SQL). */
export const FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL = `${QUERY_TAG} WITH
  p AS MATERIALIZED (SELECT pid, backend_type, wait_event_type, wait_event, query_start FROM pg_stat_get_activity(NULL) s
    WHERE ${TICK_PROCESS_FILTER})
  SELECT ${TICK_TIME_COLUMN},
  NULL::json AS aios,
  (SELECT coalesce(json_agg(${PROCESS_SAMPLE_COLUMNS}), '[]'::json) FROM p s) AS procs,
  ${DETAILS_COLUMN}`;

/**
 * What the processes table shows beyond the tick: database, user, state, the start of the query
 * and the parallel leader (parallel workers are lanes of their leader's scan), for the pids of the
 * latest tick ($1). Read at 2 Hz and when a new pid appears.
 */
export const PROCESS_DETAILS_SQL = `${QUERY_TAG} SELECT pid, datid::int8 AS datid, datname, usename, state,
  (extract(epoch FROM query_start) * 1000)::float8 AS query_start, left(query, 200) AS query, leader_pid
  FROM pg_stat_activity WHERE pid = ANY($1::int[])`;

/** pg_stat_io read counters, PostgreSQL 18+ (read_bytes exists). */
export const STAT_IO_SQL_18 = `${QUERY_TAG} SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t,
  backend_type, object, context, reads::float8 AS reads, read_bytes::float8 AS read_bytes,
  read_time::float8 AS read_time, (extract(epoch FROM stats_reset) * 1000)::float8 AS stats_reset
  FROM pg_stat_io WHERE reads IS NOT NULL`;

/** pg_stat_io read counters, PostgreSQL 16 and 17 (op_bytes instead of read_bytes). */
export const STAT_IO_SQL_16 = `${QUERY_TAG} SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t,
  backend_type, object, context, reads::float8 AS reads, (reads * op_bytes)::float8 AS read_bytes,
  read_time::float8 AS read_time, (extract(epoch FROM stats_reset) * 1000)::float8 AS stats_reset
  FROM pg_stat_io WHERE reads IS NOT NULL`;

/**
 * The fast tick for what the server and role allow (pg_aios needs 18+ and pg_read_all_stats), with
 * the processes' details when `withDetails`.
 */
export function fastTickSql(capabilities: { canReadPgAios: boolean } | null, withDetails = false): string {
  if (capabilities?.canReadPgAios === true) return withDetails ? FAST_TICK_WITH_DETAILS_SQL : FAST_TICK_SQL;
  return withDetails ? FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL : FAST_TICK_WITHOUT_AIOS_SQL;
}

export function statIoSql(versionNum: number): string {
  return versionNum >= 180000 ? STAT_IO_SQL_18 : STAT_IO_SQL_16;
}

/** I/O settings with where each value came from. */
export const IO_SETTING_NAMES = [
  'io_method',
  'io_workers',
  'io_min_workers',
  'io_max_workers',
  'io_combine_limit',
  'io_max_combine_limit',
  'io_max_concurrency',
  'effective_io_concurrency',
  'maintenance_io_concurrency',
  'track_io_timing',
  'shared_buffers',
  'block_size',
] as const;

export const SETTINGS_SQL = `${QUERY_TAG} SELECT name, setting, unit, source, sourcefile
  FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name`;

/**
 * The version alone, read first: SERVER_INFO_SQL names pg_stat_io, which a server older than 16
 * does not have, so on such a server only this query can say why aioscope cannot watch it.
 */
export const SERVER_VERSION_SQL = `${QUERY_TAG} SELECT current_setting('server_version') AS version,
  current_setting('server_version_num')::int AS version_num`;

/**
 * Version and privileges in one row. pg_get_aios() does not exist before 18, so its privilege is
 * checked through to_regprocedure to stay valid on 16 and 17.
 */
export const SERVER_INFO_SQL = `${QUERY_TAG} SELECT current_setting('server_version') AS version,
  current_setting('server_version_num')::int AS version_num,
  to_regprocedure('pg_get_aios()') IS NOT NULL AS has_pg_aios,
  coalesce(has_function_privilege(to_regprocedure('pg_get_aios()'), 'EXECUTE'), false) AS can_read_pg_aios,
  EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_stat_io'::regclass AND attname = 'read_bytes') AS stat_io_has_bytes,
  pg_has_role('pg_read_all_stats', 'USAGE') AS can_see_all_activity,
  (extract(epoch FROM pg_postmaster_start_time()) * 1000)::float8 AS started_at_ms`;

/** Everything the settings audit reads about settings, with where each value came from. */
export const AUDIT_SETTINGS_SQL = `${QUERY_TAG} SELECT name, setting, unit, source, sourcefile, sourceline, boot_val, reset_val
  FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name`;

/** Per-tablespace I/O overrides (effective_io_concurrency, maintenance_io_concurrency). */
export const AUDIT_TABLESPACES_SQL = `${QUERY_TAG} SELECT spcname, spcoptions FROM pg_tablespace ORDER BY spcname`;

/**
 * ALTER DATABASE / ROLE … SET of the settings in $1 (pg_db_role_setting is readable by every
 * role). Only those entries leave the server: a role's other settings are none of the audit's business.
 */
export const AUDIT_ROLE_SETTINGS_SQL = `${QUERY_TAG} SELECT d.datname AS database, r.rolname AS role,
  array(SELECT c FROM unnest(s.setconfig) AS c WHERE split_part(c, '=', 1) = ANY($1::text[])) AS setconfig
  FROM pg_db_role_setting s
  LEFT JOIN pg_database d ON d.oid = s.setdatabase
  LEFT JOIN pg_roles r ON r.oid = s.setrole
  WHERE EXISTS (SELECT 1 FROM unnest(s.setconfig) AS c WHERE split_part(c, '=', 1) = ANY($1::text[]))
  ORDER BY d.datname NULLS FIRST, r.rolname NULLS FIRST`;

/** The build's configure line, to tell whether io_uring (liburing) is available. Superuser only. */
export const AUDIT_PG_CONFIG_SQL = `${QUERY_TAG} SELECT setting FROM pg_config WHERE name = 'CONFIGURE'`;

/** The full query text and type of one process, for the process detail a person opened. */
export const PROCESS_ACTIVITY_SQL = `${QUERY_TAG} SELECT query, backend_type FROM pg_stat_activity WHERE pid = $1`;

/** Per-backend read counters of one process (PostgreSQL 18+), for the process detail. */
export const BACKEND_IO_SQL = `${QUERY_TAG} SELECT object, context, reads::float8 AS reads, read_bytes::float8 AS read_bytes,
  read_time::float8 AS read_time
  FROM pg_stat_get_backend_io($1) WHERE reads > 0 ORDER BY object, context`;

/** The server's clock and version for an audit report. */
export const AUDIT_SERVER_SQL = `${QUERY_TAG} SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t,
  current_setting('server_version_num')::int AS version_num`;

/** The database a relation file's database oid names (scan map labels). */
export const DATABASE_NAME_SQL = `${QUERY_TAG} SELECT datname FROM pg_database WHERE oid = $1`;

/**
 * Name and size in blocks of the relation a file belongs to ($1 tablespace, $2 filenode, $3 fork).
 * pg_filenode_relation takes 0 for the database's default tablespace and works only inside the
 * relation's own database.
 */
export const RELATION_SQL = `${QUERY_TAG} SELECT format('%I.%I', n.nspname, c.relname) AS name,
  (pg_relation_size(c.oid, $3) / current_setting('block_size')::int)::float8 AS blocks
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = pg_filenode_relation($1, $2)`;
