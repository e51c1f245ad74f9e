import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import { errorText } from './storeFile.ts';
import type { StoreReads } from './storeReader.ts';

/**
 * The databases of opened recording files (recordingIngest.ts writes them), attached read-only to
 * one DuckDB instance: its memory limit is the budget of all opened recordings together, however
 * many are open, and the rest of each file stays on disk until a range is asked for.
 */
export const OPENED_RECORDINGS_MEMORY_LIMIT = '128MB';
const DUCKDB_OPTIONS = { threads: '1', memory_limit: OPENED_RECORDINGS_MEMORY_LIMIT };

/** What an attached recording says of itself where the recorder's store reports its state. */
export interface AttachedRecordingInfo {
  /** Nothing ages out of a file: its own span is what is kept, its size the limit. */
  limits: RecordingLimits;
}

const NOT_RECORDING = { state: 'off', reason: 'a recording file: nothing new is recorded' } as const;

/**
 * One attached recording, read by the store's own reader (StoreHistoryReader): queries run one at a
 * time on a connection whose default database is this recording's.
 */
export class AttachedRecording implements StoreReads {
  private reads: Promise<void> = Promise.resolve();
  private detached = false;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly info: AttachedRecordingInfo,
    private readonly onDetach: () => Promise<void>,
  ) {}

  get limits(): RecordingLimits {
    return this.info.limits;
  }

  recordingStatus(): { state: 'off'; reason: string } {
    return NOT_RECORDING;
  }

  /** The file is what a user keeps; the database beside it is a temporary copy. */
  bytesOnDisk(): Promise<number> {
    return Promise.resolve(0);
  }

  /** As HistoryStore.read: `closed` once detached (a request racing the close gets nothing). */
  read<T>(query: (connection: DuckDBConnection) => Promise<T>, closed: T): Promise<T> {
    const run = this.reads.then(() => (this.detached ? closed : query(this.connection)));
    this.reads = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** None: an opened file's samples are in its samples file (recordingSamples.ts). */
  rawChunks(): number[] {
    return [];
  }

  async detach(): Promise<void> {
    if (this.detached) return;
    this.detached = true;
    await this.reads;
    this.connection.closeSync();
    await this.onDetach();
  }
}

export class RecordingDatabases {
  private instance: Promise<DuckDBInstance> | null = null;
  private admin: Promise<DuckDBConnection> | null = null;
  /** ATTACH and DETACH change the instance's catalog: one at a time. */
  private changes: Promise<unknown> = Promise.resolve();
  private attached = 0;

  async attach(file: string, info: AttachedRecordingInfo): Promise<AttachedRecording> {
    const alias = `recording_${++this.attached}`;
    const admin = await this.adminConnection();
    await this.change(() => admin.run(`ATTACH '${file.replaceAll("'", "''")}' AS ${alias} (READ_ONLY)`));
    try {
      const connection = await (await this.started()).connect();
      await connection.run(`USE ${alias}`);
      return new AttachedRecording(connection, info, async () => {
        await this.change(() => admin.run(`DETACH ${alias}`));
      });
    } catch (error) {
      await this.change(() => admin.run(`DETACH ${alias}`)).catch(() => undefined);
      throw new Error(`could not read the opened recording's database: ${errorText(error)}`, { cause: error });
    }
  }

  close(): void {
    const instance = this.instance;
    this.instance = null;
    this.admin = null;
    void instance?.then((started) => started.closeSync()).catch(() => undefined);
  }

  private change<T>(step: () => Promise<T>): Promise<T> {
    const run = this.changes.then(step);
    this.changes = run.catch(() => undefined);
    return run;
  }

  private started(): Promise<DuckDBInstance> {
    this.instance ??= DuckDBInstance.create(':memory:', DUCKDB_OPTIONS);
    return this.instance;
  }

  private adminConnection(): Promise<DuckDBConnection> {
    this.admin ??= this.started().then((instance) => instance.connect());
    return this.admin;
  }
}
