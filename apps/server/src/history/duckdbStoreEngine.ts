import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Baseline } from '@aioscope/spec';
import { StoreClosedError } from './baselineShelf.ts';
import * as baselines from './duckdbBaselines.ts';
import type { HistoryReader } from './historyReader.ts';
import type { Migration } from './migrations.ts';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import { applyRetention } from './retention.ts';
import type {
  EngineOpened,
  PendingRow,
  RetentionOutcome,
  StoreEngine,
  StoreState,
  TargetDescription,
} from './storeEngine.ts';
import { STORE_FILE, closeStoreFile, openStoreFile, type OpenStore } from './storeFile.ts';
import { STORE_MIGRATIONS } from './storeMigrations.ts';
import { StoreHistoryReader } from './storeReader.ts';
import { RAW_CHUNK_MS, chunkOfTable } from './storeSchema.ts';
import { writeBatch } from './storeWriter.ts';

/**
 * The embedded store: `<data dir>/history/history.duckdb` (storeFile.ts opens and migrates it, raw
 * samples in one table per 10 minutes so retention drops tables). Writes use one connection, reads
 * another, one query at a time, so a long range query never holds up the next batch.
 */
export class DuckDbStoreEngine implements StoreEngine {
  readonly label: string;
  /**
   * A batch costs DuckDB a fixed amount of CPU whatever its size (a transaction, its commit to the
   * WAL, an appender per table: ~3.5 ms) and a row little (~0.03 ms appended), so the interval sets
   * most of recording's cost: every 2 s it is under 0.2 % of a core at 20 Hz. One row per sample:
   * nothing to gain from whole seconds.
   */
  readonly batching = { intervalMs: 2_000, wholeSeconds: false };
  private open_: OpenStore | null = null;
  private readonly knownChunks = new Set<number>();
  private reads: Promise<void> = Promise.resolve();

  constructor(
    /** `<data dir>/history` */
    private readonly dir: string,
    private readonly migrations: readonly Migration<DuckDBConnection>[] = STORE_MIGRATIONS,
  ) {
    this.label = `history store at ${path.join(dir, STORE_FILE)}`;
  }

  async open(): Promise<EngineOpened> {
    const opened = await openStoreFile(this.dir, this.migrations);
    try {
      await this.listChunks(opened.writer);
    } catch (error) {
      closeStoreFile(opened);
      throw error;
    }
    this.open_ = opened;
    return { movedAside: opened.movedAside, migrated: opened.migrated };
  }

  write(rows: readonly PendingRow[]): Promise<void> {
    return writeBatch(this.writer(), rows, this.knownChunks);
  }

  async applyRetention(limits: RecordingLimits, now: number): Promise<RetentionOutcome> {
    const { droppedChunks, usedBytes } = await applyRetention(this.writer(), this.knownChunks, limits, now);
    return { droppedRawFrom: droppedChunks.map((chunk) => chunk * RAW_CHUNK_MS), usedBytes };
  }

  /**
   * Runs a query on the read connection, one at a time (a DuckDB connection runs one statement at
   * once); answers `closed` while the store is not open (recording paused, or the store refused).
   * An open store is at STORE_VERSION with bodies of BODY_VERSION: openStoreFile refuses any other.
   */
  read<T>(query: (connection: DuckDBConnection) => Promise<T>, closed: T): Promise<T> {
    const run = this.reads.then(() => {
      const connection = this.open_?.reader;
      return connection === undefined ? closed : query(connection);
    });
    this.reads = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Raw chunks in the store, oldest first. */
  rawChunks(): number[] {
    return [...this.knownChunks].sort((a, b) => a - b);
  }

  reader(targetId: string, state: StoreState, describe: () => TargetDescription): HistoryReader {
    return new StoreHistoryReader(
      targetId,
      {
        read: (query, closed) => this.read(query, closed),
        rawChunks: () => this.rawChunks(),
        keepsDescriptions: true,
        limits: state.limits,
        recordingStatus: () => state.recordingStatus(),
        bytesOnDisk: () => state.bytesOnDisk(),
      },
      describe,
    );
  }

  storedDescription(targetId: string): Promise<TargetDescription | null> {
    return this.read(async (connection) => {
      const rows = (
        await connection.runAndReadAll('SELECT description FROM targets WHERE target = $1', [targetId])
      ).getRowsJS();
      const json = rows[0]?.[0];
      return typeof json === 'string' ? (JSON.parse(json) as TargetDescription) : null;
    }, null);
  }

  keepBaseline(baseline: Baseline, file: Uint8Array): Promise<'kept' | 'nameTaken'> {
    return this.onShelf((connection) => baselines.keepBaseline(connection, baseline, file));
  }

  listBaselines(): Promise<Baseline[]> {
    return this.onShelf((connection) => baselines.listBaselines(connection));
  }

  baselineFile(id: string): Promise<Uint8Array | null> {
    return this.onShelf((connection) => baselines.baselineFile(connection, id));
  }

  removeBaseline(id: string): Promise<boolean> {
    return this.onShelf((connection) => baselines.removeBaseline(connection, id));
  }

  /**
   * Baselines go through the read connection's queue, writes included: the write connection's
   * transactions are the recorder's batches, and a baseline's insert run between a batch's BEGIN
   * and COMMIT would join (and share the fate of) that batch.
   */
  private async onShelf<T>(query: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const answer = await this.read(async (connection) => ({ value: await query(connection) }), null);
    if (answer === null) throw new StoreClosedError(this.label);
    return answer.value;
  }

  async bytesOnDisk(): Promise<number> {
    const file = path.join(this.dir, STORE_FILE);
    const sizes = await Promise.all(
      [file, `${file}.wal`].map((name) =>
        stat(name).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }

  /** Reads in flight finish first; later ones see the store closed and answer with nothing. */
  async close(): Promise<void> {
    const open = this.open_;
    this.open_ = null;
    if (open === null) return;
    const closing = this.reads.then(() => closeStoreFile(open));
    this.reads = closing;
    await closing;
  }

  private writer(): DuckDBConnection {
    if (this.open_ === null) throw new Error(`${this.label} is not open`);
    return this.open_.writer;
  }

  private async listChunks(connection: DuckDBConnection): Promise<void> {
    const result = await connection.runAndReadAll(
      "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'raw_%'",
    );
    this.knownChunks.clear();
    for (const [name] of result.getRowsJS()) {
      const chunk = chunkOfTable(String(name));
      if (chunk !== null) this.knownChunks.add(chunk);
    }
  }
}
