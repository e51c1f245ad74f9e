import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import { planRetention } from './retentionPlan.ts';
import { rawTableName } from './storeSchema.ts';

/** Size passes per run: each drops one chunk (10 minutes of raw samples) and measures again. */
const MAX_SIZE_PASSES = 12;

/** Bytes held by live blocks: a dropped table's blocks are reused, so the file stops growing. */
async function usedBytes(connection: DuckDBConnection): Promise<number> {
  const result = await connection.runAndReadAll(
    'SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()',
  );
  const [blockSize, total, free] = (result.getRowsJS()[0] ?? [0, 0, 0]).map(Number) as [number, number, number];
  return (total - free) * blockSize;
}

async function oldestRollupT(connection: DuckDBConnection): Promise<number | null> {
  const result = await connection.runAndReadAll('SELECT min(t) FROM rollups');
  const value = result.getRowsJS()[0]?.[0];
  return value === null || value === undefined ? null : Number(value);
}

/**
 * Applies retention once (every minute, on the store's write connection, between batches: the
 * sampler never waits for it). Returns what it removed, for the log and the tests.
 */
export async function applyRetention(
  connection: DuckDBConnection,
  knownChunks: Set<number>,
  limits: RecordingLimits,
  now: number,
): Promise<{ droppedChunks: number[]; usedBytes: number }> {
  const droppedChunks: number[] = [];
  let used = await usedBytes(connection);
  for (let pass = 0; pass < MAX_SIZE_PASSES; pass++) {
    const plan = planRetention({
      now,
      limits,
      rawChunks: [...knownChunks],
      usedBytes: used,
      oldestRollupT: await oldestRollupT(connection),
    });
    for (const chunk of plan.dropRawChunks) {
      await connection.run(`DROP TABLE IF EXISTS ${rawTableName(chunk)}`);
      knownChunks.delete(chunk);
      droppedChunks.push(chunk);
    }
    await connection.run('DELETE FROM rollups WHERE t < $1', [plan.rollupsBefore]);
    await connection.run('DELETE FROM events WHERE t < $1', [plan.rollupsBefore]);
    if (plan.dropRawChunks.length === 0 && used <= limits.maxBytes) break;
    // Freed blocks count as free only after a checkpoint.
    await connection.run('CHECKPOINT');
    const after = await usedBytes(connection);
    const stuck = plan.dropRawChunks.length === 0 && after >= used;
    used = after;
    if (used <= limits.maxBytes || stuck) break;
  }
  return { droppedChunks, usedBytes: used };
}
