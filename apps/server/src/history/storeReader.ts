import type { DuckDBConnection } from '@duckdb/node-api';
import type {
  HistoryEvent,
  HistoryExtent,
  HistoryFrames,
  HistoryRange,
  IoStatDelta,
  LiveFrame,
  ProcessesSnapshot,
  RollupPoint,
} from '@aioscope/spec';
import { DUCKDB_TYPES, describeAtSql } from './descriptionHistory.ts';
import { emptyHistoryFrames, type HistoryReader } from './historyReader.ts';
import { RAW_KIND, storeExtent, type RawKind, type StoreState, type TargetDescription } from './storeEngine.ts';
import { ROLLUP_STEP_AGGREGATES, rawChunkOf, rawTableName, rollupPointsOf } from './storeSchema.ts';

/**
 * What the reader needs of a DuckDB database in the store's layout: a one-at-a-time read queue, its
 * raw chunks and what extent reports. The recorder's DuckDB store is one (duckdbStoreEngine.ts); an
 * opened recording file's database is another (recordingDatabases.ts), so a file is served by
 * exactly the queries that serve the store.
 */
export interface StoreReads extends StoreState {
  /** Runs `query` when the queue reaches it; answers `closed` while the database is not open. */
  read<T>(query: (connection: DuckDBConnection) => Promise<T>, closed: T): Promise<T>;
  /** Raw chunks in the database, oldest first. */
  rawChunks(): number[];
  /**
   * The database keeps target_descriptions (the recorder's store); an opened file's database has
   * none: one header describes all of it.
   */
  readonly keepsDescriptions?: boolean;
}

const DESCRIBE_AT = describeAtSql('target_descriptions', DUCKDB_TYPES);

/** A raw sample as the reader gets it: kind, time and body text. */
export type RawRow = [kind: RawKind, t: number, body: string];

/** Where a reader finds a target's raw samples (the reader below): the store's tables or a file's. */
export interface RawSampleSource {
  /** The samples of [from, to), in (t, kind) order. */
  range(connection: DuckDBConnection, range: HistoryRange): Promise<RawRow[]>;
  /** The newest sample of `kind` before `before` (with a scan map, for frames, when asked). */
  newestBefore(connection: DuckDBConnection, kind: RawKind, withScans: boolean, before: number): Promise<RawRow | null>;
  /** t of the oldest and newest sample, null when there is none. */
  span(connection: DuckDBConnection): Promise<{ from: number; to: number } | null>;
}

const parseTrusted = (_kind: RawKind, _t: number, body: string): unknown => JSON.parse(body) as unknown;

/** Chunks searched back for the scan map and processes table in force at a range's start. */
const LOOKBACK_CHUNKS = 2;

/** Where and how a StoreHistoryReader reads a target's samples. */
export interface StoreHistoryReaderOptions {
  /** The target column's value for this target: its id, but for an opened file (one target a database). */
  storedAs?: string;
  /**
   * Parses a stored body: JSON.parse for what the recorder wrote, a schema check too for an opened
   * file's samples, stored unchecked (recordedBodyCheck.ts).
   */
  parseBody?: (kind: RawKind, t: number, body: string) => unknown;
  /** Where the raw samples are: the store's chunk tables unless given (an opened file's samples file). */
  samples?: RawSampleSource;
}

/**
 * One target's past as the store keeps it, read one query at a time on the store's read connection;
 * while recording is paused the store is closed and the past reads as empty (extent says why).
 */
export class StoreHistoryReader implements HistoryReader {
  private readonly storedAs: string;
  private readonly parseBody: (kind: RawKind, t: number, body: string) => unknown;
  private readonly samples: RawSampleSource;

  constructor(
    readonly targetId: string,
    private readonly store: StoreReads,
    private readonly describeTarget: () => TargetDescription,
    options: StoreHistoryReaderOptions = {},
  ) {
    this.storedAs = options.storedAs ?? targetId;
    this.parseBody = options.parseBody ?? parseTrusted;
    this.samples = options.samples ?? new ChunkTableSamples(store, this.storedAs);
  }

  describe(): Promise<TargetDescription> {
    return Promise.resolve(this.describeTarget());
  }

  async describeAt(t: number): Promise<TargetDescription> {
    if (this.store.keepsDescriptions !== true) return this.describeTarget();
    const json = await this.store.read(
      async (connection) => (await connection.runAndReadAll(DESCRIBE_AT, [this.storedAs, t])).getRowsJS()[0]?.[0],
      undefined,
    );
    return typeof json === 'string' ? (JSON.parse(json) as TargetDescription) : this.describeTarget();
  }

  async extent(): Promise<HistoryExtent> {
    const kept = await this.store.read(
      async (connection) => {
        const raw = await this.samples.span(connection);
        const first = await this.value(connection, 'SELECT min(t) FROM rollups WHERE target = $1');
        const last = await this.value(connection, 'SELECT max(t) FROM rollups WHERE target = $1');
        return { raw, rollups: first !== null && last !== null ? { from: first, to: last } : null };
      },
      { raw: null, rollups: null },
    );
    return storeExtent(this.targetId, this.store, kept);
  }

  async frames(range: HistoryRange): Promise<HistoryFrames> {
    const result: HistoryFrames = emptyHistoryFrames(this.targetId, range);
    return this.store.read(async (connection) => {
      await this.readRange(connection, range, result);
      return result;
    }, result);
  }

  private async readRange(connection: DuckDBConnection, range: HistoryRange, result: HistoryFrames): Promise<void> {
    for (const [kind, t, body] of await this.samples.range(connection, range)) {
      const value = this.parseBody(kind, t, body);
      if (kind === RAW_KIND.frame) result.frames.push(value as LiveFrame);
      else if (kind === RAW_KIND.ioDelta) result.ioDeltas.push(value as IoStatDelta);
      else result.processes.push(value as ProcessesSnapshot);
    }
    result.scansBefore = await this.newestBefore<LiveFrame>(connection, RAW_KIND.frame, true, range.from);
    result.processesBefore = await this.newestBefore<ProcessesSnapshot>(
      connection,
      RAW_KIND.processes,
      false,
      range.from,
    );
  }

  /**
   * Roll-ups of [from, to): the 1 s rows whose second starts in the range, added up per step in SQL
   * (sums and maxima, as mergeAccumulators adds them) so a 30-day range reads 4,000 rows, not 2.6
   * million. The wait maps are added up in SQL too, one row per step and wait: handing a day's
   * 86,400 JSON texts to JS to parse took most of a 24 h read (~430 ms of it).
   * Steps without frames or pg_stat_io reads are left out.
   */
  async rollups(range: HistoryRange, stepMs: number): Promise<RollupPoint[]> {
    const params = [this.storedAs, stepMs, range.from, range.to];
    const stepsSql =
      `SELECT floor(t / $2) * $2 AS step, ${ROLLUP_STEP_AGGREGATES} ` +
      'FROM rollups WHERE target = $1 AND t >= $3 AND t < $4 GROUP BY step ' +
      'HAVING sum(frames) > 0 OR sum(stat_reads) > 0 ORDER BY step';
    const waitsSql =
      'SELECT floor(t / $2) * $2 AS step, entry.key, sum(entry.value) FROM (' +
      `SELECT t, unnest(map_entries(json_transform(waits, '"MAP(VARCHAR, DOUBLE)"'))) AS entry ` +
      "FROM rollups WHERE target = $1 AND t >= $3 AND t < $4 AND waits <> '{}') GROUP BY ALL";
    const [steps, waits] = await this.store.read(
      async (connection) => [
        (await connection.runAndReadAll(stepsSql, params)).getRowsJS(),
        (await connection.runAndReadAll(waitsSql, params)).getRowsJS(),
      ],
      [[], []],
    );
    return rollupPointsOf(steps, waits);
  }

  async events(range: HistoryRange): Promise<HistoryEvent[]> {
    const rows = await this.store.read(
      async (connection) =>
        (
          await connection.runAndReadAll(
            'SELECT t, kind, message FROM events WHERE target = $1 AND t >= $2 AND t < $3 ORDER BY t',
            [this.storedAs, range.from, range.to],
          )
        ).getRowObjectsJS(),
      [],
    );
    return rows.map((row) => ({
      t: Number(row.t),
      kind: row.kind as HistoryEvent['kind'],
      message: String(row.message),
    }));
  }

  private async newestBefore<T>(
    connection: DuckDBConnection,
    kind: RawKind,
    withScans: boolean,
    before: number,
  ): Promise<T | null> {
    const row = await this.samples.newestBefore(connection, kind, withScans, before);
    return row === null ? null : (this.parseBody(kind, row[1], row[2]) as T);
  }

  private async value(connection: DuckDBConnection, sql: string): Promise<number | null> {
    const value = (await connection.runAndReadAll(sql, [this.storedAs])).getRowsJS()[0]?.[0];
    return value === null || value === undefined ? null : Number(value);
  }
}

/** The recorder's store: samples in one table per raw chunk (storeSchema.ts), the target a column. */
class ChunkTableSamples implements RawSampleSource {
  constructor(
    private readonly store: StoreReads,
    private readonly storedAs: string,
  ) {}

  async range(connection: DuckDBConnection, range: HistoryRange): Promise<RawRow[]> {
    const chunks = this.store
      .rawChunks()
      .filter((chunk) => chunk >= rawChunkOf(range.from) && chunk <= rawChunkOf(range.to - 1));
    if (chunks.length === 0) return [];
    const union = chunks
      .map((chunk) => `SELECT kind, t, body FROM ${rawTableName(chunk)} WHERE target = $1 AND t >= $2 AND t < $3`)
      .join(' UNION ALL ');
    const reader = await connection.runAndReadAll(`SELECT kind, t, body FROM (${union}) ORDER BY t, kind`, [
      this.storedAs,
      range.from,
      range.to,
    ]);
    return reader.getRowsJS().map(([kind, t, body]): RawRow => [Number(kind) as RawKind, Number(t), String(body)]);
  }

  async newestBefore(
    connection: DuckDBConnection,
    kind: RawKind,
    withScans: boolean,
    before: number,
  ): Promise<RawRow | null> {
    const chunks = this.store
      .rawChunks()
      .filter((chunk) => chunk <= rawChunkOf(before))
      .slice(-LOOKBACK_CHUNKS)
      .reverse();
    for (const chunk of chunks) {
      const reader = await connection.runAndReadAll(
        `SELECT t, body FROM ${rawTableName(chunk)} WHERE target = $1 AND kind = ${kind}` +
          `${withScans ? ' AND has_scans' : ''} AND t < $2 ORDER BY t DESC LIMIT 1`,
        [this.storedAs, before],
      );
      const row = reader.getRowsJS()[0];
      if (row !== undefined) return [kind, Number(row[0]), String(row[1])];
    }
    return null;
  }

  async span(connection: DuckDBConnection): Promise<{ from: number; to: number } | null> {
    const chunks = this.store.rawChunks();
    const from = await this.firstOf(connection, chunks, 'min');
    const to = await this.firstOf(connection, [...chunks].reverse(), 'max');
    return from !== null && to !== null ? { from, to } : null;
  }

  /** min or max t of the first chunk in `chunks` holding this target (another target may own a chunk alone). */
  private async firstOf(connection: DuckDBConnection, chunks: number[], of: 'min' | 'max'): Promise<number | null> {
    for (const chunk of chunks) {
      const value = (
        await connection.runAndReadAll(`SELECT ${of}(t) FROM ${rawTableName(chunk)} WHERE target = $1`, [this.storedAs])
      ).getRowsJS()[0]?.[0];
      if (value !== null && value !== undefined) return Number(value);
    }
    return null;
  }
}
