import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { RollupAccumulator } from '@aioscope/core';
import type { RecordingCounts, RecordingHeader } from '@aioscope/spec';
import { DEFAULT_RECORDING_LIMITS, type RecordingLimits } from './recordingFile.ts';
import { scanRecording, type RecordingRecord, type RecordingSink } from './recordingFileReader.ts';
import { SecondRollups } from './secondRollups.ts';
import { migrateStore } from './storeMigrations.ts';
import { RAW_KIND, type RawKind } from './storeEngine.ts';
import { createRawTableSql, rawChunkOf, rawTableName } from './storeSchema.ts';
import { appendRollupRow } from './storeWriter.ts';

/**
 * Turns a recording file into a DuckDB database of the store's own tables, streaming: a line is
 * checked (recordingFileReader.ts), its body kept as the file's own JSON text, and nothing but the
 * open second's roll-ups stays in memory. The running aioscope then serves it with the store's
 * reader, by range, so an hour at 100 Hz costs a few MB of JS heap instead of ~700 MB.
 *
 * Raw rows go through a tab-separated file per 10-minute chunk loaded with DuckDB's CSV reader:
 * about twice as fast as its appender for ~600 B bodies (measured 0.6 s against 1.3 s for 370,000
 * rows). JSON never holds a raw tab or newline inside a string, so a body is one field; a line
 * with whitespace tabs between its tokens is written re-encoded instead.
 */

export const RECORDING_DATABASE_FILE = 'recording.duckdb';
/** The target column's value in an opened file's database: it holds one target, whatever its id. */
export const RECORDING_TARGET = 'recording';

/** Within the ingest process: one thread (the sampler keeps the other core) and a small buffer pool. */
const INGEST_DUCKDB_OPTIONS = { threads: '1', memory_limit: '40MB', preserve_insertion_order: 'false' };
/** Bytes buffered before a write to the chunk's file. */
const WRITE_BUFFER_BYTES = 1 << 20;
const NEWLINE = 0x0a;
/**
 * Bytes per load (~27,000 rows of an hour at 100 Hz): bounds each temporary file and what DuckDB
 * holds before its checkpoint, and it loads one while the next is parsed. Counted in bytes, not
 * rows, so larger frames cannot take a load past DuckDB's memory limit (20 MB loads failed at a
 * 20 MB limit). Fewer loads than the 10,000 rows it was: an hour in loads of 40,000 rows took 5.6 s
 * of CPU against 7.0-7.3 s, the per-load table check and CHECKPOINT being the difference.
 */
const BYTES_PER_LOAD = 16 * 1024 * 1024;
/** A body may be one 4 MB line (the reader's limit) plus its three leading fields. */
const CSV_MAX_LINE_BYTES = 4 * 1024 * 1024 + 1024;

export interface IngestedRecording {
  header: RecordingHeader;
  counts: RecordingCounts;
  compressedBytes: number;
  uncompressedBytes: number;
  /** t of the first and last frame, null when the file holds none. */
  firstFrameT: number | null;
  lastFrameT: number | null;
  skippedTicks: number;
  /** Raw chunks in the database, oldest first. */
  rawChunks: number[];
  database: string;
}

const LINE_PREFIX: Record<Exclude<RecordingRecord['k'], 'event'>, Buffer> = {
  frame: Buffer.from('{"k":"frame","v":'),
  ioDelta: Buffer.from('{"k":"ioDelta","v":'),
  processes: Buffer.from('{"k":"processes","v":'),
};
const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;
const CLOSING_BRACE = 0x7d;

/**
 * The record's value as JSON bytes: a slice of its line when the line is the writer's own layout
 * (`{"k":…,"v":…}` with no other key and no tab, so the slice is v exactly and one CSV field),
 * else v encoded again. A slice shares the line's memory: it is copied before the line goes.
 */
export function bodyBytes(record: Exclude<RecordingRecord, { k: 'event' }>, line: Buffer | null): Buffer {
  const prefix = LINE_PREFIX[record.k];
  if (
    line !== null &&
    line.length > prefix.length &&
    line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0 &&
    line[line.length - 1] === CLOSING_BRACE &&
    !line.includes(TAB) &&
    !line.includes(CARRIAGE_RETURN)
  ) {
    return line.subarray(prefix.length, -1);
  }
  return Buffer.from(JSON.stringify(record.v));
}

const RAW_KIND_OF: Record<Exclude<RecordingRecord['k'], 'event'>, RawKind> = {
  frame: RAW_KIND.frame,
  ioDelta: RAW_KIND.ioDelta,
  processes: RAW_KIND.processes,
};

/**
 * A chunk's rows on their way to DuckDB: one tab-separated file, loaded when the chunk ends. Rows
 * are copied as bytes into a buffer written when full: no text is built or encoded again.
 */
class ChunkFile {
  bytes = 0;
  private pending = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private used = 0;
  private readonly stream: WriteStream;
  private failure: Error | null = null;

  constructor(
    readonly chunk: number,
    readonly file: string,
  ) {
    this.stream = createWriteStream(file);
    this.stream.on('error', (error) => (this.failure = error));
  }

  /** A promise when the disk is behind: the reader waits for it, so unwritten bytes stay bounded. */
  add(kind: RawKind, t: number, hasScans: boolean, body: Buffer): Promise<void> | undefined {
    const fields = `${kind}\t${t}\t${hasScans}\t`; // digits and letters: one byte a character
    const size = fields.length + body.length + 1;
    this.bytes += size;
    let keptUp = true;
    if (this.used + size > this.pending.length) keptUp = this.flush(size);
    this.used += this.pending.write(fields, this.used, 'latin1');
    this.used += body.copy(this.pending, this.used);
    this.pending[this.used++] = NEWLINE;
    return keptUp ? undefined : new Promise((resolve) => this.stream.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.flush(0);
    await new Promise<void>((resolve) => this.stream.end(resolve));
    if (this.failure !== null) throw this.failure;
  }

  /** Writes what is buffered; the next buffer holds at least `room` bytes (a line may be 4 MB). */
  private flush(room: number): boolean {
    const keptUp = this.used === 0 || this.stream.write(this.pending.subarray(0, this.used));
    this.pending = Buffer.allocUnsafe(Math.max(WRITE_BUFFER_BYTES, room));
    this.used = 0;
    return keptUp;
  }
}

/**
 * The sink of one ingest. Records arrive synchronously from the parser; loading a finished chunk
 * into DuckDB is asynchronous, so loads are chained and awaited at the end (and their failure is
 * reported there), while parsing goes on into the next chunk's file.
 */
class DatabaseSink implements RecordingSink {
  private current: ChunkFile | null = null;
  private loads: Promise<void> = Promise.resolve();
  private loadFailure: unknown = null;
  private readonly rollups = new SecondRollups();
  private loadsStarted = 0;
  readonly chunks: number[] = [];
  firstFrameT: number | null = null;
  lastFrameT: number | null = null;
  skippedTicks = 0;

  constructor(
    private readonly target: string,
    private readonly connection: DuckDBConnection,
    private readonly folder: string,
    private readonly rollupAppender: DuckDBAppender,
    private readonly eventAppender: DuckDBAppender,
  ) {}

  record(record: RecordingRecord, line: Buffer | null): Promise<void> | undefined {
    if (this.loadFailure !== null) throw this.loadFailure;
    if (record.k === 'event') {
      const { t, kind, message } = record.v;
      this.eventAppender.appendVarchar(this.target);
      this.eventAppender.appendDouble(t);
      this.eventAppender.appendVarchar(kind);
      this.eventAppender.appendVarchar(message);
      this.eventAppender.endRow();
      return undefined;
    }
    const { t } = record.v;
    const chunk = rawChunkOf(t);
    if (this.current?.chunk !== chunk || this.current.bytes >= BYTES_PER_LOAD) this.startChunk(chunk);
    const hasScans = record.k === 'frame' && record.v.scans !== undefined;
    const written = this.current?.add(RAW_KIND_OF[record.k], t, hasScans, bodyBytes(record, line));
    if (record.k === 'frame') {
      this.firstFrameT ??= t;
      this.lastFrameT = t;
      this.skippedTicks += record.v.skippedTicks;
      this.rollups.addFrame(record.v);
      this.appendRollups(this.rollups.takeComplete());
    } else if (record.k === 'ioDelta') this.rollups.addIoDelta(record.v);
    return written;
  }

  async finish(): Promise<void> {
    this.endChunk();
    await this.loads;
    if (this.loadFailure !== null) throw this.loadFailure;
    this.appendRollups(this.rollups.takeAll());
    this.rollupAppender.flushSync();
    this.eventAppender.flushSync();
  }

  /** Waits for loads in flight, for a refused file's clean-up. */
  async settle(): Promise<void> {
    await this.loads.catch(() => undefined);
    await this.current?.close().catch(() => undefined);
  }

  private appendRollups(accumulators: readonly RollupAccumulator[]): void {
    for (const acc of accumulators) {
      appendRollupRow(this.rollupAppender, this.target, acc);
      this.rollupAppender.endRow();
    }
  }

  private startChunk(chunk: number): void {
    this.endChunk();
    this.current = new ChunkFile(chunk, path.join(this.folder, `raw-${chunk}-${++this.loadsStarted}.tsv`));
  }

  private endChunk(): void {
    const done = this.current;
    if (done === null) return;
    this.current = null;
    if (this.chunks.at(-1) !== done.chunk) this.chunks.push(done.chunk);
    this.loads = this.loads.then(async () => {
      try {
        await done.close();
        await this.connection.run(createRawTableSql(done.chunk));
        await this.connection.run(
          `INSERT INTO ${rawTableName(done.chunk)} SELECT $1, kind, t, has_scans, body FROM read_csv($2, ` +
            "delim = '\t', quote = '', escape = '', header = false, auto_detect = false, " +
            "columns = {'kind': 'UTINYINT', 't': 'DOUBLE', 'has_scans': 'BOOLEAN', 'body': 'VARCHAR'}, " +
            `max_line_size = ${CSV_MAX_LINE_BYTES}, buffer_size = ${2 * CSV_MAX_LINE_BYTES})`,
          [this.target, done.file],
        );
        // Each load's blocks go to the file before the next load: without it the peak RSS of an hour
        // at 100 Hz was ~120 MB higher (bench recording-open).
        await this.connection.run('CHECKPOINT');
      } catch (error) {
        this.loadFailure ??= error;
      } finally {
        await rm(done.file, { force: true });
      }
    });
  }
}

/**
 * Checks the recording file at `file` whole and writes it into `<folder>/recording.duckdb`. On any
 * error the folder is the caller's to remove.
 */
export async function ingestRecording(
  file: string,
  folder: string,
  limits: RecordingLimits = DEFAULT_RECORDING_LIMITS,
): Promise<IngestedRecording> {
  const database = path.join(folder, RECORDING_DATABASE_FILE);
  const instance = await DuckDBInstance.create(database, INGEST_DUCKDB_OPTIONS);
  let connection: DuckDBConnection | null = null;
  let sink: DatabaseSink | null = null;
  try {
    connection = await instance.connect();
    // The store's own migrations: an opened file's database is a store of today's version.
    await migrateStore(connection);
    const rollupAppender = await connection.createAppender('rollups');
    const eventAppender = await connection.createAppender('events');
    sink = new DatabaseSink(RECORDING_TARGET, connection, folder, rollupAppender, eventAppender);
    const scanned = await scanRecording(createReadStream(file, { highWaterMark: 1 << 20 }), sink, limits);
    await sink.finish();
    rollupAppender.closeSync();
    eventAppender.closeSync();
    const { server, capabilities, sampleRateHz, statRateHz } = scanned.header;
    await connection.run('INSERT OR REPLACE INTO targets VALUES ($1, $2)', [
      RECORDING_TARGET,
      JSON.stringify({ target: scanned.header.target, server, capabilities, sampleRateHz, statRateHz }),
    ]);
    await connection.run('CHECKPOINT');
    return {
      ...scanned,
      firstFrameT: sink.firstFrameT,
      lastFrameT: sink.lastFrameT,
      skippedTicks: sink.skippedTicks,
      rawChunks: sink.chunks,
      database,
    };
  } catch (error) {
    await sink?.settle();
    throw error;
  } finally {
    try {
      connection?.closeSync();
    } finally {
      instance.closeSync();
    }
  }
}
