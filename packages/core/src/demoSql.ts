/**
 * The SQL of the demo workload on the embedded server: its table, the cold eviction and the scans
 * it runs. Names are aioscope's own (schema.table of letters, digits and _), checked before use,
 * never user text.
 */
import { QUERY_TAG } from './sql.ts';

export const DEMO_SCHEMA = 'aioscope_demo';
export const DEMO_TABLE = `${DEMO_SCHEMA}.scan_me`;

const OWN_TABLE_NAME = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

/** The table name, once checked to be one of aioscope's own; throws otherwise. */
export function ownTableName(table: string): string {
  if (!OWN_TABLE_NAME.test(table)) throw new Error(`not an aioscope table name: ${table}`);
  return table;
}

export const DEMO_EXTENSION_SQL = `${QUERY_TAG} CREATE EXTENSION IF NOT EXISTS pg_buffercache`;

export function demoSchemaSql(table: string): string {
  return `${QUERY_TAG} CREATE SCHEMA IF NOT EXISTS ${ownTableName(table).split('.')[0] ?? DEMO_SCHEMA}`;
}

/** Size of a table in bytes ($1: its name), NULL when it does not exist. */
export const RELATION_BYTES_SQL = `${QUERY_TAG} SELECT pg_relation_size(to_regclass($1))::text AS bytes`;

export function dropDemoTableSql(table: string): string {
  return `${QUERY_TAG} DROP TABLE IF EXISTS ${ownTableName(table)}`;
}

/**
 * UNLOGGED: filling it writes no WAL, which halves the time a fresh machine waits before the
 * first scan. Each row is ~250 bytes, ~30 rows per 8 kB page.
 */
export function createDemoTableSql(table: string, rows: number): string {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`not a row count: ${rows}`);
  return `${QUERY_TAG} CREATE UNLOGGED TABLE ${ownTableName(table)} WITH (autovacuum_enabled = off) AS
  SELECT g AS id, now() - g * interval '1 second' AS recorded_at, md5(g::text) || repeat('x', 180) AS payload
    FROM generate_series(1, ${rows}) AS g`;
}

/** Hint bits and the visibility map set now, so later scans only read and never dirty pages. */
export function freezeDemoTableSql(table: string): string {
  return `${QUERY_TAG} VACUUM (FREEZE, ANALYZE) ${ownTableName(table)}`;
}

/** File path, size and block size of a table ($1: its name). */
export const DESCRIBE_TABLE_SQL = `${QUERY_TAG} SELECT pg_relation_filepath($1::regclass) AS path,
  pg_relation_size($1::regclass)::text AS bytes, current_setting('block_size') AS block_size`;

/** Evicts a table ($1) from shared buffers (pg_buffercache 1.6 writes dirty buffers out first). */
export const EVICT_RELATION_SQL = `${QUERY_TAG} SELECT pg_buffercache_evict_relation($1::regclass)`;

/** Session settings of a demo scanner: one process per scan, each from block 0 (see DEMO_SCANS). */
export const DEMO_SCANNER_SETTINGS_SQL = [
  `${QUERY_TAG} SET max_parallel_workers_per_gather = 0`,
  `${QUERY_TAG} SET synchronize_seqscans = off`,
];

/**
 * Two kinds of scan side by side: one I/O-bound (reads as fast as storage allows), one CPU-bound
 * (an md5 per row), whose completed reads wait in pg_aios for the backend to reach them, so its
 * look-ahead and progress are easy to follow on the scan map.
 */
export const DEMO_SCANS = [
  `${QUERY_TAG} SELECT count(*) FROM ${DEMO_TABLE}`,
  `${QUERY_TAG} SELECT count(*) FILTER (WHERE md5(repeat(payload, 4)) LIKE '00%') FROM ${DEMO_TABLE}`,
];
