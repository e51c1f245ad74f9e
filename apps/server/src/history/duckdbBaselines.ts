import { blobValue, type DuckDBConnection } from '@duckdb/node-api';
import type { Baseline } from '@aioscope/spec';
import { BASELINE_COLUMNS, baselineOfRow, baselineRowValues } from './baselineShelf.ts';

/** The embedded store's baselines table (store version 2), one statement per call. */

export async function keepBaseline(
  connection: DuckDBConnection,
  baseline: Baseline,
  file: Uint8Array,
): Promise<'kept' | 'nameTaken'> {
  const values = [...baselineRowValues(baseline), blobValue(file)];
  const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
  // The unique (target, name) decides, in the insert itself: no check-then-insert window.
  const result = await connection.runAndReadAll(
    `INSERT INTO baselines (${BASELINE_COLUMNS.join(', ')}, file) VALUES (${placeholders}) ON CONFLICT DO NOTHING RETURNING id`,
    values,
  );
  return result.getRowsJS().length === 1 ? 'kept' : 'nameTaken';
}

export async function listBaselines(connection: DuckDBConnection): Promise<Baseline[]> {
  const result = await connection.runAndReadAll(
    `SELECT ${BASELINE_COLUMNS.join(', ')} FROM baselines ORDER BY created_at DESC, id`,
  );
  return result.getRowsJS().map(baselineOfRow);
}

export async function baselineFile(connection: DuckDBConnection, id: string): Promise<Uint8Array | null> {
  const rows = (await connection.runAndReadAll('SELECT file FROM baselines WHERE id = $1', [id])).getRowsJS();
  const file = rows[0]?.[0];
  return file instanceof Uint8Array ? file : null;
}

export async function removeBaseline(connection: DuckDBConnection, id: string): Promise<boolean> {
  const result = await connection.runAndReadAll('DELETE FROM baselines WHERE id = $1 RETURNING id', [id]);
  return result.getRowsJS().length > 0;
}
