import pg from 'pg';
import type { Baseline } from '@aioscope/spec';
import { StoreClosedError } from '../baselineShelf.ts';
import type { RecordingLimits } from '../../config/recordingLimits.ts';
import { clientConfigFromUrl } from '../../postgres/libpqSsl.ts';
import type { HistoryReader } from '../historyReader.ts';
import {
  StoreRefusedError,
  migrate,
  planMigrations,
  type FoundVersion,
  type Migration,
  type VersionedStore,
} from '../migrations.ts';
import type {
  EngineOpened,
  PendingRow,
  RetentionOutcome,
  StoreEngine,
  StoreState,
  TargetDescription,
} from '../storeEngine.ts';
import { BODY_VERSION } from '../storeSchema.ts';
import * as baselines from './pgBaselines.ts';
import { PgHistoryReader } from './pgStoreReader.ts';
import {
  META_SQL,
  META_TABLE,
  PARTITIONED,
  PG_SCHEMA,
  PG_STORE_MIGRATIONS,
  STORE_LOCK_KEY,
  createPartitionSql,
  parsePartitionName,
  partitionName,
  type PartitionedTable,
} from './pgStoreSchema.ts';
import { batchStatements } from './pgStoreWriter.ts';

export const PG_STORE_WHAT = 'history store';
const NEWER_ADVICE = 'update aioscope, or point --store at another database';
/** The first release's body format, recorded by every new store. */
const FIRST_BODY_VERSION = 1;

/** Reads run on a pool beside the writer's connection, so a long range never holds up a batch. */
const POOL_SIZE = 4;
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The address without its password, for the log and the recording badge: nor its parameters,
 * where node-postgres also reads one (`?password=…`, `?sslpassword=…`).
 */
export function storeLabel(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    url.password = '';
    url.search = '';
    return `history store at ${url.toString()}`;
  } catch {
    return 'history store (PostgreSQL)';
  }
}

/**
 * The shared store: history in a PostgreSQL database the team runs (`--store postgres://…`), in the
 * schema aioscope_history that aioscope creates and migrates. Tables that grow are partitioned by
 * time; retention drops partitions. Several aioscope processes may write one store at once: each
 * writes only the targets it samples, and partitions and migrations are made under an advisory
 * lock.
 */
export class PostgresStoreEngine implements StoreEngine {
  readonly label: string;
  /**
   * Whole seconds, each written within ~0.3 s of its end: a replica killed loses the second it was
   * sampling, not up to the last two (bench/README.md §10: 0.78 s instead of 1.44 s on average). A
   * batch costs this process the same per row every 2 s, 1 s or 0.5 s; most 250 ms ticks find no
   * second ended and write nothing. Cut mid-second, a second was two rows and grew the store.
   */
  readonly batching = { intervalMs: 250, wholeSeconds: true };
  private pool: pg.Pool | null = null;
  /** Partitions known to exist (made here or found at open), by table. */
  private readonly partitions = new Map<PartitionedTable, Set<number>>();

  constructor(
    private readonly connectionString: string,
    /** The replica writing (fleet/targetOwnership.ts newReplicaId), kept with its raw rows. */
    private readonly writer = 'aioscope',
    private readonly migrations: readonly Migration<pg.ClientBase>[] = PG_STORE_MIGRATIONS,
  ) {
    this.label = storeLabel(connectionString);
  }

  async open(): Promise<EngineOpened> {
    const pool = new pg.Pool({
      ...clientConfigFromUrl(this.connectionString),
      max: POOL_SIZE,
      application_name: 'aioscope history',
      statement_timeout: STATEMENT_TIMEOUT_MS,
      // A dead network path answers nothing, not even the server's timeout: give up here too.
      query_timeout: STATEMENT_TIMEOUT_MS + 5_000,
      connectionTimeoutMillis: 5_000,
    });
    // An idle connection that dies (the server restarted) must not end the process.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [STORE_LOCK_KEY]);
        try {
          const migrated = await this.migrateStore(client);
          await this.listPartitions(client);
          this.pool = pool;
          return { movedAside: null, migrated };
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [STORE_LOCK_KEY]).catch(() => undefined);
        }
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  async write(rows: readonly PendingRow[]): Promise<void> {
    const pool = this.openPool();
    const { statements, partitions } = batchStatements(rows, this.writer);
    const client = await pool.connect();
    try {
      await this.ensurePartitions(client, partitions);
      await client.query('BEGIN');
      try {
        for (const statement of statements) await client.query(statement.text, statement.values);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // A connection a write failed on (a timeout, a lost server) is not given to the next one.
      client.release(true);
      throw error;
    }
    client.release();
  }

  async applyRetention(limits: RecordingLimits, now: number): Promise<RetentionOutcome> {
    const pool = this.openPool();
    const client = await pool.connect();
    try {
      await this.listPartitions(client);
      const droppedRawFrom: number[] = [];
      const drop = async (table: PartitionedTable, index: number): Promise<void> => {
        await client.query(`DROP TABLE IF EXISTS ${PG_SCHEMA}.${partitionName(table, index)}`);
        this.known(table).delete(index);
        if (table === 'raw') droppedRawFrom.push(index * PARTITIONED.raw.widthMs);
      };
      // By age: a partition goes once all of it is older than its table's limit.
      for (const [table, before] of [
        ['raw', now - limits.rawMs],
        ['rollups', now - limits.rollupMs],
        ['events', now - limits.rollupMs],
      ] as const) {
        const { widthMs } = PARTITIONED[table];
        for (const index of this.sorted(table)) if ((index + 1) * widthMs <= before) await drop(table, index);
      }
      // By size: the oldest raw hours go first; the newest one (being written) always stays.
      let used = await this.usedBytes(client);
      for (const index of this.sorted('raw').slice(0, -1)) {
        if (used <= limits.maxBytes) break;
        await drop('raw', index);
        used = await this.usedBytes(client);
      }
      return { droppedRawFrom, usedBytes: used };
    } finally {
      client.release();
    }
  }

  reader(targetId: string, state: StoreState, describe: () => TargetDescription): HistoryReader {
    return new PgHistoryReader(targetId, state, describe, (query, closed) => this.read(query, closed));
  }

  storedDescription(targetId: string): Promise<TargetDescription | null> {
    return this.read(async (pool) => {
      const { rows } = await pool.query<{ description: string }>(
        `SELECT description FROM ${PG_SCHEMA}.targets WHERE target = $1`,
        [targetId],
      );
      const json = rows[0]?.description;
      return json === undefined ? null : (JSON.parse(json) as TargetDescription);
    }, null);
  }

  async keepBaseline(baseline: Baseline, file: Uint8Array): Promise<'kept' | 'nameTaken'> {
    return baselines.keepBaseline(this.shelfPool(), baseline, file);
  }

  async listBaselines(): Promise<Baseline[]> {
    return baselines.listBaselines(this.shelfPool());
  }

  async baselineFile(id: string): Promise<Uint8Array | null> {
    return baselines.baselineFile(this.shelfPool(), id);
  }

  async removeBaseline(id: string): Promise<boolean> {
    return baselines.removeBaseline(this.shelfPool(), id);
  }

  private shelfPool(): pg.Pool {
    if (this.pool === null) throw new StoreClosedError(this.label);
    return this.pool;
  }

  bytesOnDisk(): Promise<number> {
    return this.read((pool) => this.usedBytes(pool), 0);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    // pool.end() waits for checked-out clients: reads in flight finish first.
    await pool?.end().catch(() => undefined);
  }

  /** Runs a read on the pool; `closed` while the store is not open. */
  private async read<T>(query: (pool: pg.Pool) => Promise<T>, closed: T): Promise<T> {
    const pool = this.pool;
    if (pool === null) return closed;
    return query(pool);
  }

  private openPool(): pg.Pool {
    if (this.pool === null) throw new Error(`${this.label} is not open`);
    return this.pool;
  }

  private async usedBytes(queryable: pg.Pool | pg.PoolClient): Promise<number> {
    const { rows } = await queryable.query<{ bytes: string | null }>(
      "SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
      [PG_SCHEMA],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  private known(table: PartitionedTable): Set<number> {
    let set = this.partitions.get(table);
    if (set === undefined) {
      set = new Set();
      this.partitions.set(table, set);
    }
    return set;
  }

  private sorted(table: PartitionedTable): number[] {
    return [...this.known(table)].sort((a, b) => a - b);
  }

  private async listPartitions(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<{ name: string }>(
      "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relispartition",
      [PG_SCHEMA],
    );
    this.partitions.clear();
    for (const { name } of rows) {
      const partition = parsePartitionName(name);
      if (partition !== null) this.known(partition.table).add(partition.index);
    }
  }

  /**
   * Makes the partitions a batch needs, before its transaction: creating one locks its parent
   * table, so it is done in a short transaction of its own, under the store's advisory lock (two
   * replicas creating the same partition would otherwise collide).
   */
  private async ensurePartitions(
    client: pg.PoolClient,
    needed: ReadonlyMap<PartitionedTable, ReadonlySet<number>>,
  ): Promise<void> {
    const missing: [PartitionedTable, number][] = [];
    for (const [table, indexes] of needed) {
      for (const index of indexes) if (!this.known(table).has(index)) missing.push([table, index]);
    }
    if (missing.length === 0) return;
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [STORE_LOCK_KEY]);
      for (const [table, index] of missing) await client.query(createPartitionSql(table, index));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    for (const [table, index] of missing) this.known(table).add(index);
  }

  /**
   * Refuses a newer store before writing anything to it, then runs the missing steps in order.
   * The schema is made first: `CREATE SCHEMA IF NOT EXISTS` changes nothing in a store that has one.
   */
  private async migrateStore(client: pg.PoolClient): Promise<EngineOpened['migrated']> {
    const found = await readVersion(client);
    planMigrations(this.migrations, found.version, PG_STORE_WHAT, NEWER_ADVICE);
    const meta = await readMeta(client);
    if (meta !== null && meta.bodyVersion > BODY_VERSION) {
      throw new StoreRefusedError(
        `${PG_STORE_WHAT} holds samples in format version ${meta.bodyVersion}, written by a newer aioscope; this one reads format version ${BODY_VERSION}: ${NEWER_ADVICE}`,
      );
    }
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
    const outcome = await migrate(versionedStore(client), this.migrations, PG_STORE_WHAT, NEWER_ADVICE);
    const after = await readMeta(client);
    if (after?.bodyVersion !== BODY_VERSION) {
      throw new StoreRefusedError(
        `${PG_STORE_WHAT} holds samples in format version ${after?.bodyVersion ?? '?'}; this aioscope reads format version ${BODY_VERSION} and has no migration for them`,
      );
    }
    return outcome;
  }
}

interface Meta {
  storeVersion: number;
  bodyVersion: number;
}

async function readMeta(client: pg.ClientBase): Promise<Meta | null> {
  const exists = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [META_TABLE]);
  if (exists.rows[0]?.found === null || exists.rows[0]?.found === undefined) return null;
  const { rows } = await client.query<{ store_version: number; body_version: number }>(
    `SELECT store_version, body_version FROM ${META_TABLE}`,
  );
  const [row] = rows;
  if (rows.length !== 1 || row === undefined) {
    throw new StoreRefusedError(
      `${PG_STORE_WHAT} has ${rows.length} rows in ${META_TABLE} instead of one, so its version is unknown: point --store at another database`,
    );
  }
  return { storeVersion: row.store_version, bodyVersion: row.body_version };
}

/** A new database has no schema yet: version 0. The shared store never existed without versions. */
async function readVersion(client: pg.ClientBase): Promise<FoundVersion> {
  const meta = await readMeta(client);
  return { version: meta?.storeVersion ?? 0, unrecorded: false };
}

function versionedStore(client: pg.ClientBase): VersionedStore<pg.ClientBase> {
  return {
    connection: client,
    readVersion: () => readVersion(client),
    async step(version, work) {
      await client.query('BEGIN');
      try {
        await work(client);
        await client.query(META_SQL);
        const updated = await client.query(`UPDATE ${META_TABLE} SET store_version = $1`, [version]);
        if (updated.rowCount === 0) {
          await client.query(`INSERT INTO ${META_TABLE} VALUES ($1, $2)`, [version, FIRST_BODY_VERSION]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  };
}

/** Why the store cannot be used at start. */
export interface StoreUnusable {
  reason: string;
  /** Whether waiting (--wait-for-db) can help: not for a store refused as newer than this aioscope. */
  retryable: boolean;
}

/**
 * Opens and closes the store once: what start-up does before anything else when --store is given,
 * so an unreachable store ends the start with its reason (exit 2), as an unreachable --db does. A
 * team's replica that silently recorded nothing would be found out too late.
 */
export async function checkStoreReachable(connectionString: string): Promise<StoreUnusable | null> {
  const engine = new PostgresStoreEngine(connectionString);
  try {
    await engine.open();
    return null;
  } catch (error) {
    return {
      reason: `${engine.label} cannot be used: ${error instanceof Error ? error.message : String(error)}`,
      retryable: !(error instanceof StoreRefusedError),
    };
  } finally {
    await engine.close();
  }
}
