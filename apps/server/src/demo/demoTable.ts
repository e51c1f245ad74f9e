import type { ClientBase } from 'pg';
import {
  DEMO_EXTENSION_SQL,
  DEMO_TABLE,
  DESCRIBE_TABLE_SQL,
  EVICT_RELATION_SQL,
  RELATION_BYTES_SQL,
  createDemoTableSql,
  demoSchemaSql,
  dropDemoTableSql,
  freezeDemoTableSql,
  ownTableName,
} from '@aioscope/core';
import { describeDatabaseError } from '../postgres/sessions.ts';
import { dropFromOsCache, osCacheResidency, segmentPaths } from './osCache.ts';

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
  ownTableName(table);
  await client.query(DEMO_EXTENSION_SQL).catch((error: unknown) => {
    // A role that may not create it (the lab on a user's server): say who can, not only "denied".
    if ((error as { code?: string }).code !== '42501') throw error;
    throw new Error(
      `${describeDatabaseError(error)}: the lab evicts its table with pg_buffercache, which is not a trusted extension; a superuser must run CREATE EXTENSION pg_buffercache in this database first`,
    );
  });
  await client.query(demoSchemaSql(table));
  const existing = await client.query<{ bytes: string | null }>(RELATION_BYTES_SQL, [table]);
  const existingBytes = Number(existing.rows[0]?.bytes ?? 0);
  if (existingBytes < targetBytes * 0.9) {
    const rows = Math.ceil(targetBytes / BYTES_PER_ROW_ESTIMATE);
    await client.query(dropDemoTableSql(table));
    await client.query(createDemoTableSql(table, rows));
    await client.query(freezeDemoTableSql(table));
  }
  return describeDemoTable(client, resolveDataPath, table);
}

export async function describeDemoTable(
  client: ClientBase,
  resolveDataPath: (relative: string) => string,
  table: string = DEMO_TABLE,
): Promise<DemoTableInfo> {
  const result = await client.query<{ path: string; bytes: string; block_size: string }>(DESCRIBE_TABLE_SQL, [table]);
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
  await client.query(EVICT_RELATION_SQL, [table.name]);
  await dropFromOsCache(table.files);
  return osCacheResidency(table.files);
}
