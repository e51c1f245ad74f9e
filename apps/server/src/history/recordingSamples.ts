import { closeSync, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HistoryRange } from '@aioscope/spec';
import type { RawKind } from './storeEngine.ts';
import type { RawRow, RawSampleSource } from './storeReader.ts';

/**
 * An opened recording's samples: their bodies, one per line, in a file of their own beside its
 * database, and in the database only an index (kind, t, whether a frame holds a scan map, where its
 * body is). A range is then one indexed query and one read of the file's bytes.
 *
 * Why not the bodies in DuckDB, as the recorder's store keeps them: copying an hour at 100 Hz
 * (220 MB of JSON) into it took ~1.3 s of loading and ~2.2 s of checkpoints (compressing the
 * text), most of an open, for a copy that is read a few times and removed with the recording.
 */

export const SAMPLES_FILE = 'samples.jsonl';
export const SAMPLES_INDEX_TABLE = 'recording_samples';

const CREATE_INDEX_TABLE =
  `CREATE TABLE ${SAMPLES_INDEX_TABLE} (kind UTINYINT NOT NULL, t DOUBLE NOT NULL, has_scans BOOLEAN NOT NULL, ` +
  'body_at UBIGINT NOT NULL, body_bytes UINTEGER NOT NULL)';
/** Bytes buffered before a write to a file. */
const WRITE_BUFFER_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Bytes appended to a file through one buffer, written synchronously when full. The writer runs in
 * the ingest process, whose thread does nothing else while a file opens: a blocking 1 MB write
 * costs it less than a stream's write queue, a fresh buffer per write and the garbage of both
 * (an hour at 100 Hz: ~220 MB through here).
 */
class BufferedFile {
  private buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private used = 0;
  private fd: number | null;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  /** Copies `bytes` (a view of the reader's buffer may be reused after the call). */
  addBytes(bytes: Buffer): void {
    this.room(bytes.length);
    this.used += bytes.copy(this.buffer, this.used);
  }

  /** Text of one byte a character (digits, letters, tabs). */
  addLatin1(text: string): void {
    this.room(text.length);
    this.used += this.buffer.write(text, this.used, 'latin1');
  }

  addByte(byte: number): void {
    this.room(1);
    this.buffer[this.used++] = byte;
  }

  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    try {
      this.flush();
    } finally {
      this.fd = null;
      closeSync(fd);
    }
  }

  /** Writes what is buffered when `size` more bytes do not fit; a body may be larger than the buffer. */
  private room(size: number): void {
    if (this.used + size <= this.buffer.length) return;
    this.flush();
    if (size > this.buffer.length) this.buffer = Buffer.allocUnsafe(size);
  }

  private flush(): void {
    if (this.fd === null) throw new Error(`${path.basename(this.file)} is closed`);
    let written = 0;
    while (written < this.used) written += writeSync(this.fd, this.buffer, written, this.used - written);
    this.used = 0;
  }
}

/**
 * Writes the samples of one ingest: bodies to SAMPLES_FILE, the index as tab-separated rows
 * (digits and letters only) loaded into the database once at the end by DuckDB's CSV reader.
 */
export class SamplesWriter {
  private readonly bodies: BufferedFile;
  private readonly index: BufferedFile;
  private written = 0;

  constructor(
    readonly samplesFile: string,
    private readonly indexFile: string,
  ) {
    this.bodies = new BufferedFile(samplesFile);
    this.index = new BufferedFile(indexFile);
  }

  add(kind: RawKind, t: number, hasScans: boolean, body: Buffer): void {
    this.index.addLatin1(`${kind}\t${t}\t${hasScans}\t${this.written}\t${body.length}\n`);
    this.bodies.addBytes(body);
    this.bodies.addByte(NEWLINE);
    this.written += body.length + 1;
  }

  /** Closes both files and loads the index into the database (`connection`'s default one). */
  async finish(connection: DuckDBConnection): Promise<void> {
    this.bodies.close();
    this.index.close();
    await connection.run(CREATE_INDEX_TABLE);
    await connection.run(
      `INSERT INTO ${SAMPLES_INDEX_TABLE} SELECT * FROM read_csv($1, delim = '\t', quote = '', escape = '', ` +
        'header = false, auto_detect = false, buffer_size = 1048576, columns = ' +
        "{'kind': 'UTINYINT', 't': 'DOUBLE', 'has_scans': 'BOOLEAN', 'body_at': 'UBIGINT', 'body_bytes': 'UINTEGER'})",
      [this.indexFile],
    );
  }

  /** For a refused file: both files closed, whatever state they are in. */
  abandon(): void {
    for (const file of [this.bodies, this.index]) {
      try {
        file.close();
      } catch {
        // The file is removed with its folder: what it failed to write no longer matters.
      }
    }
  }
}

/** An opened recording's samples file, read by range through its index. */
export class SamplesFile implements RawSampleSource {
  private handle: Promise<FileHandle> | null = null;

  constructor(private readonly samplesFile: string) {}

  async range(connection: DuckDBConnection, range: HistoryRange): Promise<RawRow[]> {
    const rows = (
      await connection.runAndReadAll(
        `SELECT kind, t, body_at, body_bytes FROM ${SAMPLES_INDEX_TABLE} WHERE t >= $1 AND t < $2 ORDER BY t, kind`,
        [range.from, range.to],
      )
    ).getRowsJS();
    return this.bodiesOf(rows);
  }

  async newestBefore(
    connection: DuckDBConnection,
    kind: RawKind,
    withScans: boolean,
    before: number,
  ): Promise<RawRow | null> {
    const rows = (
      await connection.runAndReadAll(
        `SELECT kind, t, body_at, body_bytes FROM ${SAMPLES_INDEX_TABLE} WHERE kind = $1 AND t < $2` +
          `${withScans ? ' AND has_scans' : ''} ORDER BY t DESC LIMIT 1`,
        [kind, before],
      )
    ).getRowsJS();
    return (await this.bodiesOf(rows))[0] ?? null;
  }

  async span(connection: DuckDBConnection): Promise<{ from: number; to: number } | null> {
    const [from, to] =
      (await connection.runAndReadAll(`SELECT min(t), max(t) FROM ${SAMPLES_INDEX_TABLE}`)).getRowsJS()[0] ?? [];
    return from === null || from === undefined || to === null || to === undefined
      ? null
      : { from: Number(from), to: Number(to) };
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await (await handle?.catch(() => null))?.close();
  }

  /**
   * The rows' bodies in one read: samples of a time range lie next to each other in the file (it
   * is in time order), so the bytes from the first body to the last hold them all.
   */
  private async bodiesOf(rows: unknown[][]): Promise<RawRow[]> {
    if (rows.length === 0) return [];
    let start = Infinity;
    let end = 0;
    for (const row of rows) {
      start = Math.min(start, Number(row[2]));
      end = Math.max(end, Number(row[2]) + Number(row[3]));
    }
    const bytes = Buffer.allocUnsafe(end - start);
    this.handle ??= open(this.samplesFile, 'r');
    const handle = await this.handle;
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, start + read);
      if (bytesRead === 0) throw new Error(`the opened recording's samples file ends early (${SAMPLES_FILE})`);
      read += bytesRead;
    }
    return rows.map((row): RawRow => {
      const at = Number(row[2]) - start;
      return [Number(row[0]) as RawKind, Number(row[1]), bytes.toString('utf8', at, at + Number(row[3]))];
    });
  }
}
