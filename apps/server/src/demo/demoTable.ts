import type { ClientBase } from 'pg';
import { dropFromOsCache, osCacheResidency, segmentPaths } from './osCache.ts';

export const DEMO_SCHEMA = 'aioscope_demo';
export const DEMO_TABLE = `${DEMO_SCHEMA}.scan_me`;

/** Each row is ~ 250 bytes, ~ 30 rows per 8 kB page. */
const BYTES_PER_ROW_ESTIMATE = 270;

export interface DemoTableInfo {
  /** Schema-qualified name. */
  name: string;
  relationBytes: number;
  blocks: number;
  /** Absolute paths of the table's segment files. */
  files: string[];
}

/**
 * Creates the demo table when missing or smaller than wanted. UNLOGGED: filling it writes no WAL,
 * which halves the time a fresh machine waits before the first scan.
 */
export async function ensureDemoTable(
  client: ClientBase,
  targetBytes: number,
  resolveDataPath: (relative: string) => string,
  table: string = DEMO_TABLE,
): Promise<DemoTableInfo> {
  // `table` is one of aioscope's own names (schema.name of letters, digits and _), never user text.
  if (!/^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not an aioscope table name: ${table}`);
  const schema = table.split('.')[0] ?? DEMO_SCHEMA;
  await client.query(`CREATE EXTENSION IF NOT EXISTS pg_buffercache`);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const existing = await client.query<{ bytes: string | null }>(
    `SELECT pg_relation_size(to_regclass($1))::text AS bytes`,
    [table],
  );
  const existingBytes = Number(existing.rows[0]?.bytes ?? 0);
  if (existingBytes < targetBytes * 0.9) {
    const rows = Math.ceil(targetBytes / BYTES_PER_ROW_ESTIMATE);
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.query(
      `CREATE UNLOGGED TABLE ${table} WITH (autovacuum_enabled = off) AS
         SELECT g AS id, now() - g * interval '1 second' AS recorded_at, md5(g::text) || repeat('x', 180) AS payload
           FROM generate_series(1, $1::bigint) AS g`.replace('$1::bigint', String(rows)),
    );
    // Set hint bits and the visibility map now, so later scans only read and never dirty pages.
    await client.query(`VACUUM (FREEZE, ANALYZE) ${table}`);
  }
  return describeDemoTable(client, resolveDataPath, table);
}

export async function describeDemoTable(
  client: ClientBase,
  resolveDataPath: (relative: string) => string,
  table: string = DEMO_TABLE,
): Promise<DemoTableInfo> {
  const result = await client.query<{ path: string; bytes: string; block_size: string }>(
    `SELECT pg_relation_filepath($1::regclass) AS path, pg_relation_size($1::regclass)::text AS bytes,
            current_setting('block_size') AS block_size`,
    [table],
  );
  const row = result.rows[0];
  if (row === undefined) throw new Error(`table ${table} not found`);
  const relationBytes = Number(row.bytes);
  return {
    name: table,
    relationBytes,
    blocks: relationBytes / Number(row.block_size),
    files: segmentPaths(resolveDataPath(row.path), relationBytes),
  };
}

/**
 * Makes the next scan cold: evicts the table from shared buffers (pg_buffercache 1.6, writing any
 * dirty buffer to the OS first), then from the OS page cache. Returns the OS residency measured after.
 */
export async function makeDemoTableCold(client: ClientBase, table: DemoTableInfo): Promise<number> {
  await client.query(`SELECT pg_buffercache_evict_relation($1::regclass)`, [table.name]);
  await dropFromOsCache(table.files);
  return osCacheResidency(table.files);
}
