import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { SCHEMA_SQL } from './storeSchema.ts';

export const STORE_FILE = 'history.duckdb';

/**
 * One embedded DuckDB: a single execution thread and a memory cap, so the store never competes with
 * the sampler for both of a laptop's cores. Writes and reads use separate connections, so a long
 * range query never holds up the next batch.
 */
const DUCKDB_OPTIONS = { threads: '1', memory_limit: '128MB' };

/** What DuckDB says about a file it cannot read as a database (not about a folder it cannot use). */
const CORRUPT =
  /not a valid DuckDB database|Could not read enough bytes|corrupt|checksum|Serialization Error|INTERNAL Error/i;

export interface OpenStore {
  instance: DuckDBInstance;
  writer: DuckDBConnection;
  reader: DuckDBConnection;
  /** Where a corrupt store was moved, when it was. */
  movedAside: string | null;
}

/**
 * Opens (or creates) `<dir>/history.duckdb`. DuckDB replays its WAL after a kill -9 and ignores a
 * torn tail. A file it cannot read at all is moved aside with its WAL and a new store started:
 * history is worth less than starting. A folder that cannot be written throws (the caller pauses).
 */
export async function openStoreFile(dir: string): Promise<OpenStore> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, STORE_FILE);
  let movedAside: string | null = null;
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, DUCKDB_OPTIONS);
  } catch (error) {
    if (!CORRUPT.test(errorText(error)) || !existsSync(file)) throw error;
    movedAside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, movedAside);
    if (existsSync(`${file}.wal`)) await rename(`${file}.wal`, `${movedAside}.wal`);
    instance = await DuckDBInstance.create(file, DUCKDB_OPTIONS);
  }
  try {
    const writer = await instance.connect();
    for (const sql of SCHEMA_SQL) await writer.run(sql);
    const reader = await instance.connect();
    return { instance, writer, reader, movedAside };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

export function closeStoreFile(store: OpenStore): void {
  for (const close of [
    () => store.writer.closeSync(),
    () => store.reader.closeSync(),
    () => store.instance.closeSync(),
  ]) {
    try {
      close();
    } catch {
      // Closing after a failed write may fail again; the next open starts from the file.
    }
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One line a user reads on the recording badge: the OS reason without DuckDB's prefix. */
export function pauseReason(error: unknown): string {
  const text = errorText(error).replace(/^IO Error: /, '');
  if (/No space left|ENOSPC/i.test(text)) return `disk full: ${text}`;
  if (/Read-only file system|EROFS|Permission denied|EACCES/i.test(text)) return `data folder not writable: ${text}`;
  if (/lock/i.test(text)) return `another process holds the history store: ${text}`;
  return text;
}
