import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { StoreRefusedError, type Migration, type MigrationOutcome } from './migrations.ts';
import {
  NEWER_STORE_ADVICE,
  STORE_MIGRATIONS,
  STORE_WHAT,
  checkStoreVersion,
  migrateStore,
  type StoreMeta,
} from './storeMigrations.ts';

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
/** What DuckDB says about a file written by a newer DuckDB (so by a newer aioscope): refused, not corrupt. */
const NEWER_DUCKDB = /newer version of DuckDB|storage version greater than/i;

export interface OpenStore {
  instance: DuckDBInstance;
  writer: DuckDBConnection;
  reader: DuckDBConnection;
  /** Where a corrupt store was moved, when it was. */
  movedAside: string | null;
  /** The versions the store is at (the newest this code knows) and how it got there. */
  meta: StoreMeta;
  migrated: MigrationOutcome;
}

/**
 * Opens (or creates) `<dir>/history.duckdb` and migrates it to the newest version
 * (storeMigrations.ts). DuckDB replays its WAL after a kill -9 and ignores a torn tail. A file it
 * cannot read at all is moved aside with its WAL and a new store started: history is worth less
 * than starting. A store written by a newer aioscope (a newer store version, or a newer DuckDB's
 * file) is refused with a StoreRefusedError before anything is written to it: it is not corrupt,
 * and the newer aioscope still reads it. A folder that cannot be written throws (the caller pauses).
 */
export async function openStoreFile(
  dir: string,
  migrations: readonly Migration<DuckDBConnection>[] = STORE_MIGRATIONS,
): Promise<OpenStore> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, STORE_FILE);
  let movedAside: string | null = null;
  let instance: DuckDBInstance;
  try {
    // Read-only first: opening for writing would merge a newer aioscope's WAL into its file.
    if (existsSync(file)) await peekStore(file, migrations);
    instance = await DuckDBInstance.create(file, DUCKDB_OPTIONS);
  } catch (error) {
    if (error instanceof StoreRefusedError) throw error;
    if (NEWER_DUCKDB.test(errorText(error))) throw newerDuckdb(error);
    if (!CORRUPT.test(errorText(error)) || !existsSync(file)) throw error;
    movedAside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, movedAside);
    if (existsSync(`${file}.wal`)) await rename(`${file}.wal`, `${movedAside}.wal`);
    instance = await DuckDBInstance.create(file, DUCKDB_OPTIONS);
  }
  try {
    const writer = await instance.connect();
    const { outcome, meta } = await migrateStore(writer, migrations);
    const reader = await instance.connect();
    return { instance, writer, reader, movedAside, meta, migrated: outcome };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

/** Refuses a store newer than this code without writing to it (DuckDB's read-only mode writes nothing). */
async function peekStore(file: string, migrations: readonly Migration<DuckDBConnection>[]): Promise<void> {
  const instance = await DuckDBInstance.create(file, { ...DUCKDB_OPTIONS, access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    try {
      await checkStoreVersion(connection, migrations);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

function newerDuckdb(error: unknown): StoreRefusedError {
  const detail =
    errorText(error)
      .replace(/^IO Error: /, '')
      .split('\n')[0] ?? '';
  return new StoreRefusedError(
    `${STORE_WHAT} was written by a newer DuckDB, so by a newer aioscope (${detail}): ${NEWER_STORE_ADVICE}`,
    { cause: error },
  );
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
  if (error instanceof StoreRefusedError) return error.message; // says what to do, in full
  const text = errorText(error).replace(/^IO Error: /, '');
  if (/No space left|ENOSPC/i.test(text)) return `disk full: ${text}`;
  if (/Read-only file system|EROFS|Permission denied|EACCES/i.test(text)) return `data folder not writable: ${text}`;
  if (/lock/i.test(text)) return `another process holds the history store: ${text}`;
  return text;
}
