import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, type ZlibOptions } from 'node:zlib';
import type { ZodError } from 'zod';
import { stepStart } from '@aioscope/core';
import {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  recordingHeaderSchema,
  recordingLineSchema,
  type HistoryEvent,
  type IoStatDelta,
  type LiveFrame,
  type ProcessesSnapshot,
  type RecordingCounts,
  type RecordingHeader,
  type RecordingLine,
  type RecordingRollup,
} from '@aioscope/spec';
import {
  DEFAULT_RECORDING_LIMITS,
  RecordingFileError,
  formatMegabytes,
  type RecordingLimits,
} from './recordingFile.ts';
import { isCertainlyValidLine } from './recordingLineCheck.ts';
import { rawSampleOf, sliceValue, type RawSample, type RawSampleKind } from './recordingRawLine.ts';

/**
 * Reads a recording file, checking every line against the spec's schemas. Anything wrong refuses
 * the whole file with a RecordingFileError naming what and where: a recording is either loaded
 * exactly as written or not at all, never shown incomplete.
 */

export interface LoadedRecording {
  header: RecordingHeader;
  frames: LiveFrame[];
  ioDeltas: IoStatDelta[];
  processes: ProcessesSnapshot[];
  events: HistoryEvent[];
  /** The file's own 1 s roll-ups, read from a file (none when it carries none; not needed to write one). */
  rollups?: RecordingRollup[];
  compressedBytes: number;
}

const GZIP_MAGIC = [0x1f, 0x8b];
const NEWLINE = 0x0a;
/** gunzip's output chunk: larger than its 16 kB default, so fewer lines straddle two chunks. */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
/**
 * Decompressed ahead of the parser: when a sink's write holds the one thread gunzip runs on (an
 * ingest's DuckDB load), parsing goes on from what is buffered instead of waiting.
 */
const GUNZIP_AHEAD_BYTES = 4 * 1024 * 1024;
/** A zlib stream takes a stream's options too (Node hands them to Transform); its type lists only zlib's. */
const GUNZIP_OPTIONS: ZlibOptions & { highWaterMark: number } = {
  chunkSize: GUNZIP_CHUNK_BYTES,
  highWaterMark: GUNZIP_AHEAD_BYTES,
};
const NOT_OURS = 'not an aioscope recording';

function describeIssue(error: ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** zod's verdict on a line the fast check did not vouch for: its output, or its first issue. */
function parseLine(json: unknown, where: string): RecordingLine {
  const parsed = recordingLineSchema.safeParse(json);
  if (!parsed.success) throw new RecordingFileError(`corrupted: ${where}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** Line 1: ours, a version this reader knows, then the full header schema. */
function parseHeader(text: string): RecordingHeader {
  const json = parseJson(text);
  if (typeof json !== 'object' || json === null)
    throw new RecordingFileError(`${NOT_OURS}: its first line is not JSON`);
  const { format, version } = json as { format?: unknown; version?: unknown };
  if (format !== RECORDING_FORMAT)
    throw new RecordingFileError(`${NOT_OURS}: its first line is not a recording header`);
  // Checked before the schema: a newer header may hold anything, and the version is what to say.
  if (typeof version === 'number' && version > RECORDING_VERSION) {
    throw new RecordingFileError(
      `written by a newer aioscope (format v${version}); this one reads v${RECORDING_VERSION}: update aioscope to open it`,
    );
  }
  const parsed = recordingHeaderSchema.safeParse(json);
  if (!parsed.success) throw new RecordingFileError(`corrupted header (line 1): ${describeIssue(parsed.error)}`);
  return parsed.data;
}

const sameCounts = (a: RecordingCounts, b: RecordingCounts): boolean =>
  a.frames === b.frames &&
  a.ioDeltas === b.ioDeltas &&
  a.processes === b.processes &&
  a.events === b.events &&
  a.rollups === b.rollups;

const describeCounts = (c: RecordingCounts): string =>
  `${c.frames} frames, ${c.ioDeltas} pg_stat_io deltas, ${c.processes} process tables, ${c.events} events` +
  (c.rollups === undefined ? '' : `, ${c.rollups} roll-ups`);

/** A record as the file holds it. */
export type RecordingRecord = Exclude<RecordingLine, { k: 'end' }>;

/**
 * Where checked records go, in file order: arrays in memory (readRecording, for tests and small
 * files) or a store on disk (recordingIngest.ts, for files opened in a running aioscope). A sink may
 * throw a RecordingFileError to refuse the file.
 */
export interface RecordingSink {
  /**
   * `line` is the record's line as UTF-8 bytes when it holds nothing but "k" and "v" (a store may
   * then keep v's text as it is instead of encoding it again), null otherwise. The bytes may be a
   * view of the reader's buffer: valid during the call only. A promise asks the reader to wait
   * before the next line (a sink writing to disk keeps up so).
   */
  record(record: RecordingRecord, line: Buffer | null): void | Promise<void>;
  /**
   * A sink that can take samples unparsed: given, and the file carrying its own roll-ups, every
   * frame, delta and processes table comes here instead of record(), in the writer's layout
   * unparsed and unchecked (recordingRawLine.ts), else checked and encoded. Their bodies must be
   * checked when read back (`checkRecordedBody`). The body is a view valid during the call only.
   */
  rawSample?(sample: RawSample): void | Promise<void>;
}

/** What a scan of a whole file found, once every check passed. */
export interface ScannedRecording {
  header: RecordingHeader;
  counts: RecordingCounts;
  compressedBytes: number;
  uncompressedBytes: number;
}

/** A checked sample record as a RawSample: its value's text sliced from the line when it can be. */
function checkedSample(
  record: Extract<RecordingRecord, { k: RawSampleKind }>,
  line: Buffer,
  onlyKindAndValue: boolean,
): RawSample {
  const sliced = onlyKindAndValue ? sliceValue(record.k, line) : null;
  return {
    kind: record.k,
    t: record.v.t,
    hasScans: record.k === 'frame' && record.v.scans !== undefined,
    body: sliced ?? Buffer.from(JSON.stringify(record.v)),
  };
}

const isSampleKind = (kind: string): kind is RawSampleKind =>
  kind === 'frame' || kind === 'ioDelta' || kind === 'processes';

/** The line-by-line state: what was read so far and what the next line must respect. */
class RecordingParser {
  private lineNumber = 0;
  private header: RecordingHeader | null = null;
  private ended: RecordingCounts | null = null;
  private lastT = -Infinity;
  private lastRollupT = -Infinity;
  private records = 0;
  /** Samples go to sink.rawSample: the sink takes them so and the file rolls itself up. */
  private raw = false;
  private readonly found: RecordingCounts = { frames: 0, ioDeltas: 0, processes: 0, events: 0 };

  constructor(
    private readonly limits: RecordingLimits,
    private readonly sink: RecordingSink,
  ) {}

  get hasHeader(): boolean {
    return this.header !== null;
  }

  /** One line, as the bytes it is (decoded here, and only when it must be parsed). */
  line(bytes: Buffer): void | Promise<void> {
    this.lineNumber++;
    if (this.header === null) {
      this.header = parseHeader(bytes.toString('utf8'));
      if (this.header.counts.rollups !== undefined) this.found.rollups = 0;
      this.raw = this.header.counts.rollups !== undefined && this.sink.rawSample !== undefined;
      return;
    }
    const where = `line ${this.lineNumber}`;
    if (this.ended !== null) throw new RecordingFileError(`corrupted: ${where} follows the end record`);
    if (this.raw) {
      const sample = rawSampleOf(bytes);
      if (sample !== null) {
        this.count(sample.kind, sample.t, where);
        return this.sink.rawSample?.(sample);
      }
    }
    const json = parseJson(bytes.toString('utf8'));
    if (json === undefined) throw new RecordingFileError(`corrupted: ${where} is not JSON`);
    const record = isCertainlyValidLine(json) ? json : parseLine(json, where);
    if (record.k === 'end') {
      this.ended = record.counts;
      return;
    }
    if (record.k === 'rollup') {
      this.countRollup(record.v.t, where);
      return this.sink.record(record, null);
    }
    this.count(record.k, record.v.t, where);
    const onlyKindAndValue = Object.keys(json as object).length === 2;
    if (this.raw && isSampleKind(record.k)) {
      return this.sink.rawSample?.(
        checkedSample(record as Extract<RecordingRecord, { k: RawSampleKind }>, bytes, onlyKindAndValue),
      );
    }
    return this.sink.record(record, onlyKindAndValue ? bytes : null);
  }

  /** A record of the time line: in order, in the file's range, within the limit, counted. */
  private count(kind: Exclude<RecordingRecord['k'], 'rollup'>, t: number, where: string): void {
    const header = this.header as RecordingHeader;
    const { from, to } = header.range;
    if (t < this.lastT) {
      throw new RecordingFileError(`corrupted: ${where}: time ${t} is before the previous record's ${this.lastT}`);
    }
    if (t < from || t >= to) throw new RecordingFileError(`corrupted: ${where}: time ${t} is outside the file's range`);
    this.lastT = t;
    this.countRecord();
    if (kind === 'frame') this.found.frames++;
    else if (kind === 'ioDelta') this.found.ioDeltas++;
    else if (kind === 'processes') this.found.processes++;
    else this.found.events++;
  }

  /** Roll-ups follow the records, in their own time order, one per second at most. */
  private countRollup(t: number, where: string): void {
    const header = this.header as RecordingHeader;
    if (this.found.rollups === undefined) {
      throw new RecordingFileError(`corrupted: ${where} is a roll-up, but the header counts none`);
    }
    if (t <= this.lastRollupT) {
      throw new RecordingFileError(
        `corrupted: ${where}: roll-up ${t} is not after the previous one's ${this.lastRollupT}`,
      );
    }
    const { from, to } = header.range;
    if (t < stepStart(from) || t >= to) {
      throw new RecordingFileError(`corrupted: ${where}: roll-up ${t} is outside the file's range`);
    }
    this.lastRollupT = t;
    this.countRecord();
    this.found.rollups++;
  }

  private countRecord(): void {
    if (++this.records > this.limits.maxRecords) {
      throw new RecordingFileError(`too large: more than ${this.limits.maxRecords} records`);
    }
  }

  finish(): { header: RecordingHeader; counts: RecordingCounts } {
    if (this.header === null) throw new RecordingFileError(`${NOT_OURS}: it is empty`);
    if (this.ended === null) {
      throw new RecordingFileError(`truncated: no end record after line ${this.lineNumber} (the file was cut short)`);
    }
    for (const [what, expected] of [
      ['end record', this.ended],
      ['header', this.header.counts],
    ] as const) {
      if (!sameCounts(expected, this.found)) {
        throw new RecordingFileError(
          `truncated or edited: the ${what} counts ${describeCounts(expected)}, the file holds ${describeCounts(this.found)}`,
        );
      }
    }
    return { header: this.header, counts: { ...this.found } };
  }
}

function zlibMessage(error: unknown): string | null {
  const code = (error as { code?: unknown }).code;
  if (code === 'Z_BUF_ERROR') return 'truncated: the compressed data ends mid-stream (the file was cut short)';
  if (code === 'Z_DATA_ERROR') return `corrupted: the compressed data is damaged (${(error as Error).message})`;
  return null;
}

/**
 * Reads and checks a whole recording file as a stream, handing each checked record to the sink:
 * memory stays bounded by one line whatever the file's size. Throws a RecordingFileError for
 * anything wrong; records already handed over are then the sink's to discard.
 */
export async function scanRecording(
  source: Buffer | AsyncIterable<Buffer | string>,
  sink: RecordingSink,
  limits: RecordingLimits = DEFAULT_RECORDING_LIMITS,
): Promise<ScannedRecording> {
  const parser = new RecordingParser(limits, sink);
  let compressedBytes = 0;
  let uncompressedBytes = 0;
  let carry: Buffer[] = [];
  let carryBytes = 0;
  const input = Buffer.isBuffer(source) ? Readable.from([source]) : Readable.from(source);

  async function* guardCompressed(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      if (compressedBytes === 0 && bytes.length > 0 && (bytes[0] !== GZIP_MAGIC[0] || bytes[1] !== GZIP_MAGIC[1])) {
        throw new RecordingFileError(`${NOT_OURS}: it is not gzip-compressed (recordings are .aioscope.gz files)`);
      }
      compressedBytes += bytes.length;
      if (compressedBytes > limits.maxCompressedBytes) {
        throw new RecordingFileError(`too large: over the ${formatMegabytes(limits.maxCompressedBytes)} limit`);
      }
      yield bytes;
    }
  }

  async function collectLines(chunks: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of chunks) {
      uncompressedBytes += chunk.length;
      if (uncompressedBytes > limits.maxUncompressedBytes) {
        throw new RecordingFileError(
          `too large: over ${formatMegabytes(limits.maxUncompressedBytes)} once decompressed`,
        );
      }
      // Lines are cut as bytes and decoded whole, so a character split across chunks stays intact;
      // a line inside one chunk is decoded in place, without a copy.
      let start = 0;
      for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
        let line: Buffer;
        if (carry.length === 0) line = chunk.subarray(start, newline);
        else {
          carry.push(chunk.subarray(start, newline));
          line = Buffer.concat(carry);
          carry = [];
          carryBytes = 0;
        }
        const waiting = parser.line(line);
        start = newline + 1;
        if (waiting !== undefined) await waiting;
      }
      if (start < chunk.length) carry.push(chunk.subarray(start));
      carryBytes += chunk.length - start;
      if (carryBytes > limits.maxLineBytes) {
        throw new RecordingFileError(
          parser.hasHeader
            ? `corrupted: a line longer than ${formatMegabytes(limits.maxLineBytes)}`
            : `${NOT_OURS}: its first line is not a recording header`,
        );
      }
    }
  }

  try {
    await pipeline(input, guardCompressed, createGunzip(GUNZIP_OPTIONS), collectLines);
  } catch (error) {
    if (error instanceof RecordingFileError) throw error;
    const message = zlibMessage(error);
    if (message !== null) throw new RecordingFileError(message);
    throw error;
  }
  if (carryBytes > 0) {
    const line = Buffer.concat(carry);
    await parser.line(line);
  }
  return { ...parser.finish(), compressedBytes, uncompressedBytes };
}

/**
 * Reads and checks a whole recording file into memory: for tests, the bench and small files. A
 * running aioscope opens files into a store on disk instead (recordingOpener.ts).
 */
export async function readRecording(
  source: Buffer | AsyncIterable<Buffer | string>,
  limits: RecordingLimits = DEFAULT_RECORDING_LIMITS,
): Promise<LoadedRecording> {
  const frames: LiveFrame[] = [];
  const ioDeltas: IoStatDelta[] = [];
  const processes: ProcessesSnapshot[] = [];
  const events: HistoryEvent[] = [];
  const rollups: RecordingRollup[] = [];
  const sink: RecordingSink = {
    record(record) {
      if (record.k === 'frame') frames.push(record.v);
      else if (record.k === 'ioDelta') ioDeltas.push(record.v);
      else if (record.k === 'processes') processes.push(record.v);
      else if (record.k === 'event') events.push(record.v);
      else rollups.push(record.v);
    },
  };
  const { header, compressedBytes } = await scanRecording(source, sink, limits);
  return { header, frames, ioDeltas, processes, events, rollups, compressedBytes };
}
