import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { RollupAccumulator } from '@aioscope/core';
import type { RecordingCounts, RecordingHeader } from '@aioscope/spec';
import { DEFAULT_RECORDING_LIMITS, type RecordingLimits } from './recordingFile.ts';
import { scanRecording, type RecordingRecord, type RecordingSink } from './recordingFileReader.ts';
import { sliceValue, type RawSample, type RawSampleKind } from './recordingRawLine.ts';
import { SAMPLES_FILE, SamplesWriter } from './recordingSamples.ts';
import { SecondRollups } from './secondRollups.ts';
import { migrateStore } from './storeMigrations.ts';
import { RAW_KIND, type RawKind } from './storeEngine.ts';
import { appendRollupRow } from './storeWriter.ts';

/**
 * Turns a recording file into what a running aioscope serves it from, streaming: a database in the
 * store's layout for the roll-ups and events (read by the store's own reader) and a samples file
 * with its index for the raw samples (recordingSamples.ts). Nothing but the open second's roll-ups
 * stays in memory, so an hour at 100 Hz costs a few MB of JS heap.
 *
 * A file that carries its own roll-ups (format 2's 'rollup' lines) is not parsed sample by sample:
 * each sample's body is stored as the file's own text and checked when read (recordedBodyCheck.ts).
 * An older file's samples are parsed and checked here, to roll them up.
 */

export const RECORDING_DATABASE_FILE = 'recording.duckdb';
/** The target column's value in an opened file's database: it holds one target, whatever its id. */
export const RECORDING_TARGET = 'recording';

/**
 * Within the ingest process: one thread (the sampler keeps the other core) and a small buffer pool:
 * it holds roll-ups, events and the samples' index (~22 B a sample), never a body. 24 MB with the
 * index's CSV read through a 1 MB buffer: the process's peak fell from ~178 to ~156 MB for an hour
 * at 100 Hz (16 MB also worked; the default CSV buffer needs a 30 MB block).
 */
const INGEST_DUCKDB_OPTIONS = { threads: '1', memory_limit: '24MB', preserve_insertion_order: 'false' };
const SAMPLES_INDEX_FILE = 'samples-index.tsv';

export interface IngestedRecording {
  header: RecordingHeader;
  counts: RecordingCounts;
  compressedBytes: number;
  uncompressedBytes: number;
  /** t of the first and last frame, null when the file holds none. */
  firstFrameT: number | null;
  lastFrameT: number | null;
  skippedTicks: number;
  database: string;
  /** The samples' bodies, one a line (recordingSamples.ts); the index is in the database. */
  samplesFile: string;
}

/**
 * The record's value as JSON bytes: a slice of its line when the line is the writer's own layout
 * (`{"k":…,"v":…}` with no other key, so the slice is v exactly), else v encoded again. A slice
 * shares the line's memory: it is copied before the line goes.
 */
export function bodyBytes(record: Extract<RecordingRecord, { k: RawSampleKind }>, line: Buffer | null): Buffer {
  return (line === null ? null : sliceValue(record.k, line)) ?? Buffer.from(JSON.stringify(record.v));
}

const RAW_KIND_OF: Record<RawSampleKind, RawKind> = {
  frame: RAW_KIND.frame,
  ioDelta: RAW_KIND.ioDelta,
  processes: RAW_KIND.processes,
};

/**
 * The sink of one ingest. Records arrive synchronously from the parser: samples go to the samples
 * writer (written synchronously: this process does nothing else meanwhile), roll-ups and events to appenders.
 */
class DatabaseSink implements RecordingSink {
  private readonly rollups = new SecondRollups();
  firstFrameT: number | null = null;
  lastFrameT: number | null = null;
  skippedTicks = 0;

  constructor(
    private readonly target: string,
    private readonly samples: SamplesWriter,
    private readonly rollupAppender: DuckDBAppender,
    private readonly eventAppender: DuckDBAppender,
  ) {}

  /** A sample of a file that carries its own roll-ups: stored as its text, rolled up by the file. */
  rawSample({ kind, t, hasScans, body }: RawSample): void {
    if (kind === 'frame') this.frameAt(t);
    this.samples.add(RAW_KIND_OF[kind], t, hasScans, body);
  }

  record(record: RecordingRecord, line: Buffer | null): void {
    if (record.k === 'rollup') {
      this.skippedTicks += record.v.skippedTicks;
      this.appendRollups([record.v]);
      return;
    }
    if (record.k === 'event') {
      const { t, kind, message } = record.v;
      this.eventAppender.appendVarchar(this.target);
      this.eventAppender.appendDouble(t);
      this.eventAppender.appendVarchar(kind);
      this.eventAppender.appendVarchar(message);
      this.eventAppender.endRow();
      return;
    }
    const { t } = record.v;
    const hasScans = record.k === 'frame' && record.v.scans !== undefined;
    this.samples.add(RAW_KIND_OF[record.k], t, hasScans, bodyBytes(record, line));
    if (record.k === 'frame') {
      this.frameAt(t);
      this.skippedTicks += record.v.skippedTicks;
      this.rollups.addFrame(record.v);
      this.appendRollups(this.rollups.takeComplete());
    } else if (record.k === 'ioDelta') this.rollups.addIoDelta(record.v);
  }

  finish(): void {
    this.appendRollups(this.rollups.takeAll());
    this.rollupAppender.flushSync();
    this.eventAppender.flushSync();
  }

  private frameAt(t: number): void {
    this.firstFrameT ??= t;
    this.lastFrameT = t;
  }

  private appendRollups(accumulators: readonly RollupAccumulator[]): void {
    for (const acc of accumulators) {
      appendRollupRow(this.rollupAppender, this.target, acc);
      this.rollupAppender.endRow();
    }
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
  const samplesFile = path.join(folder, SAMPLES_FILE);
  const indexFile = path.join(folder, SAMPLES_INDEX_FILE);
  const instance = await DuckDBInstance.create(database, INGEST_DUCKDB_OPTIONS);
  let connection: DuckDBConnection | null = null;
  const samples = new SamplesWriter(samplesFile, indexFile);
  try {
    connection = await instance.connect();
    // The store's own migrations: an opened file's database is a store of today's version.
    await migrateStore(connection);
    const rollupAppender = await connection.createAppender('rollups');
    const eventAppender = await connection.createAppender('events');
    const sink = new DatabaseSink(RECORDING_TARGET, samples, rollupAppender, eventAppender);
    const scanned = await scanRecording(createReadStream(file, { highWaterMark: 1 << 20 }), sink, limits);
    sink.finish();
    rollupAppender.closeSync();
    eventAppender.closeSync();
    await samples.finish(connection);
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
      database,
      samplesFile,
    };
  } catch (error) {
    samples.abandon();
    throw error;
  } finally {
    await rm(indexFile, { force: true });
    try {
      connection?.closeSync();
    } finally {
      instance.closeSync();
    }
  }
}
