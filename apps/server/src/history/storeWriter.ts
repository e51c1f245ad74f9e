import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { PendingRow } from './storeEngine.ts';
import { ROLLUP_MAX_COLUMNS, ROLLUP_SUM_COLUMNS, createRawTableSql, rawChunkOf, rawTableName } from './storeSchema.ts';

/** Rows per INSERT statement: a few hundred parameters parse quickly and keep statements small. */
const ROWS_PER_INSERT = 100;

const ROLLUP_FIELDS = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MAX_COLUMNS];
const ROLLUP_INSERT_COLUMNS = ['target', 't', ...ROLLUP_FIELDS.map(([, column]) => column), 'waits'];

/**
 * Writes one batch in one transaction: a kill -9 keeps a batch whole or not at all. Creates the raw
 * chunk tables the batch needs (knownChunks is the store's list, updated here).
 */
export async function writeBatch(
  connection: DuckDBConnection,
  rows: readonly PendingRow[],
  knownChunks: Set<number>,
): Promise<void> {
  const raw = new Map<number, DuckDBValue[][]>();
  const rollups: DuckDBValue[][] = [];
  const events: DuckDBValue[][] = [];
  const targets = new Map<string, string>();
  for (const row of rows) {
    switch (row.table) {
      case 'raw': {
        const chunk = rawChunkOf(row.t);
        const list = raw.get(chunk) ?? [];
        list.push([row.target, row.kind, row.t, row.hasScans, row.body]);
        raw.set(chunk, list);
        break;
      }
      case 'rollup':
        rollups.push([
          row.target,
          row.acc.t,
          ...ROLLUP_FIELDS.map(([field]) => row.acc[field]),
          JSON.stringify(row.acc.waitSums),
        ]);
        break;
      case 'event':
        events.push([row.target, row.event.t, row.event.kind, row.event.message]);
        break;
      case 'target':
        targets.set(row.target, row.description);
        break;
    }
  }
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const [chunk, values] of raw) {
      if (!knownChunks.has(chunk)) await connection.run(createRawTableSql(chunk));
      await insert(connection, rawTableName(chunk), ['target', 'kind', 't', 'has_scans', 'body'], values);
    }
    await insert(connection, 'rollups', ROLLUP_INSERT_COLUMNS, rollups);
    await insert(connection, 'events', ['target', 't', 'kind', 'message'], events);
    for (const [target, description] of targets) {
      await connection.run('INSERT OR REPLACE INTO targets VALUES ($1, $2)', [target, description]);
    }
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  for (const chunk of raw.keys()) knownChunks.add(chunk);
}

async function insert(
  connection: DuckDBConnection,
  table: string,
  columns: readonly string[],
  rows: DuckDBValue[][],
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const slice = rows.slice(start, start + ROWS_PER_INSERT);
    let n = 0;
    const tuples = slice.map((row) => `(${row.map(() => `$${++n}`).join(', ')})`);
    await connection.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, slice.flat());
  }
}
