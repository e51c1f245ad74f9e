import type pg from 'pg';
import type { Baseline } from '@aioscope/spec';
import { BASELINE_COLUMNS, baselineOfRow, baselineRowValues } from '../baselineShelf.ts';
import { PG_SCHEMA } from './pgStoreSchema.ts';

/** The shared store's baselines table (store version 2): every replica sees the same ones. */

const TABLE = `${PG_SCHEMA}.baselines`;

export async function keepBaseline(pool: pg.Pool, baseline: Baseline, file: Uint8Array): Promise<'kept' | 'nameTaken'> {
  const values = [...baselineRowValues(baseline), Buffer.from(file.buffer, file.byteOffset, file.byteLength)];
  const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
  // Two replicas marking the same name at once: the unique (target, name) lets exactly one in.
  const { rowCount } = await pool.query(
    `INSERT INTO ${TABLE} (${BASELINE_COLUMNS.join(', ')}, file) VALUES (${placeholders}) ON CONFLICT DO NOTHING`,
    values,
  );
  return rowCount === 1 ? 'kept' : 'nameTaken';
}

export async function listBaselines(pool: pg.Pool): Promise<Baseline[]> {
  const { rows } = await pool.query({
    text: `SELECT ${BASELINE_COLUMNS.join(', ')} FROM ${TABLE} ORDER BY created_at DESC, id`,
    rowMode: 'array',
  });
  return (rows as unknown[][]).map(baselineOfRow);
}

export async function baselineFile(pool: pg.Pool, id: string): Promise<Uint8Array | null> {
  const { rows } = await pool.query<{ file: Buffer }>(`SELECT file FROM ${TABLE} WHERE id = $1`, [id]);
  return rows[0]?.file ?? null;
}

export async function removeBaseline(pool: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query(`DELETE FROM ${TABLE} WHERE id = $1`, [id]);
  return rowCount === 1;
}
