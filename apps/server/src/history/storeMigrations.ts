import type { DuckDBConnection } from '@duckdb/node-api';
import {
  StoreRefusedError,
  latestVersion,
  migrate,
  planMigrations,
  type FoundVersion,
  type Migration,
  type MigrationOutcome,
  type VersionedStore,
} from './migrations.ts';
import { BODY_VERSION, ROLLUP_STATE_COLUMN_NAMES, SCHEMA_SQL } from './storeSchema.ts';

/**
 * The DuckDB store's versions (migrations.ts is the mechanism). One row in store_meta records two:
 *
 * - store_version: the shape of the tables. Any change to one (a roll-up column added, renamed or
 *   retyped, a table added or split, a key or index) is a new migration at the end of
 *   STORE_MIGRATIONS, and its number is the new store version.
 * - body_version: the format of the raw rows' JSON bodies (BODY_VERSION in storeSchema.ts). A change
 *   to it is a migration too, whose step rewrites or tags the rows and sets body_version.
 *
 * To add a migration: append `{ version: <last + 1>, describe, up }`; `up` runs on the write
 * connection inside the step's transaction (DuckDB runs DDL in a transaction too), so it must not
 * BEGIN or COMMIT itself. Never edit a released step; add a fixture written by the new release
 * (apps/server/scripts/record-history-store-fixture.ts) beside the ones before it.
 */
export const STORE_MIGRATIONS: readonly Migration<DuckDBConnection>[] = [
  {
    version: 1,
    describe: 'the tables of the first release: raw chunks, rollups, events, targets',
    up: async (connection: DuckDBConnection): Promise<void> => {
      for (const sql of SCHEMA_SQL) await connection.run(sql);
    },
  },
  {
    version: 2,
    describe: 'baselines: marked ranges kept as recording files, untouched by retention',
    up: async (connection: DuckDBConnection): Promise<void> => {
      await connection.run(
        'CREATE TABLE baselines (id VARCHAR PRIMARY KEY, target VARCHAR NOT NULL, target_name VARCHAR NOT NULL, ' +
          'name VARCHAR NOT NULL, range_from DOUBLE NOT NULL, range_to DOUBLE NOT NULL, bytes BIGINT NOT NULL, ' +
          'created_by VARCHAR, created_at DOUBLE NOT NULL, file BLOB NOT NULL, UNIQUE (target, name))',
      );
    },
  },
  {
    version: 3,
    describe: "targets' descriptions through time, so a range is described as it was recorded",
    up: async (connection: DuckDBConnection): Promise<void> => {
      await connection.run(
        'CREATE TABLE target_descriptions (target VARCHAR NOT NULL, since DOUBLE NOT NULL, description VARCHAR NOT NULL)',
      );
      // When the latest description took effect is not known: it stands for all that came before.
      await connection.run('INSERT INTO target_descriptions SELECT target, 0, description FROM targets');
    },
  },
  {
    version: 4,
    describe: 'roll-ups keep reads in flight by pg_aios state (NULL, not recorded, in the rows before)',
    up: async (connection: DuckDBConnection): Promise<void> => {
      // DuckDB adds one column per ALTER TABLE statement.
      for (const column of ROLLUP_STATE_COLUMN_NAMES)
        await connection.run(`ALTER TABLE rollups ADD COLUMN ${column} DOUBLE`);
    },
  },
];

export const STORE_VERSION = latestVersion(STORE_MIGRATIONS);

/** What the store is called in a refusal, and what a user can do about a newer one. */
export const STORE_WHAT = 'history store';
export const NEWER_STORE_ADVICE = 'update aioscope, or start with another --data-dir';

/**
 * store_meta itself never changes shape: it is what an older aioscope reads to refuse a newer store.
 * It is written by the mechanism in every step's transaction, not by a step.
 */
const META_TABLE = 'store_meta';
const META_SQL = `CREATE TABLE IF NOT EXISTS ${META_TABLE} (store_version INTEGER NOT NULL, body_version INTEGER NOT NULL)`;
/**
 * The body format of the release before versions, which every store started with: the meta row of
 * a new or adopted store says so, and a later body migration moves it on.
 */
const FIRST_BODY_VERSION = 1;
/** A store with all of these and no store_meta was written by the release before versions: version 1. */
const VERSION_1_TABLES = ['rollups', 'events', 'targets'];

export interface StoreMeta {
  storeVersion: number;
  bodyVersion: number;
}

async function tablesOf(connection: DuckDBConnection): Promise<Set<string>> {
  const result = await connection.runAndReadAll(
    "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
  );
  return new Set(result.getRowsJS().map(([name]) => String(name)));
}

/** The store's meta row; null for a store without one (new, or from before versions). */
export async function readStoreMeta(connection: DuckDBConnection): Promise<StoreMeta | null> {
  if (!(await tablesOf(connection)).has(META_TABLE)) return null;
  const rows = (await connection.runAndReadAll(`SELECT store_version, body_version FROM ${META_TABLE}`)).getRowsJS();
  const [row] = rows;
  if (rows.length !== 1 || row === undefined) {
    throw new StoreRefusedError(
      `${STORE_WHAT} has ${rows.length} rows in ${META_TABLE} instead of one, so its version is unknown: move history.duckdb away, or start with another --data-dir`,
    );
  }
  return { storeVersion: Number(row[0]), bodyVersion: Number(row[1]) };
}

/**
 * The version of a DuckDB store: its meta row's; without one, 1 if it holds version 1's tables (the
 * release before versions wrote them), else 0 (new, or a creation cut short: step 1 completes it).
 */
export async function findStoreVersion(connection: DuckDBConnection): Promise<FoundVersion> {
  const meta = await readStoreMeta(connection);
  if (meta !== null) return { version: meta.storeVersion, unrecorded: false };
  const tables = await tablesOf(connection);
  const isVersion1 = VERSION_1_TABLES.every((table) => tables.has(table));
  return { version: isVersion1 ? 1 : 0, unrecorded: true };
}

/** The store as migrations.ts drives it: the meta row is written in each step's own transaction. */
function versionedStore(connection: DuckDBConnection): VersionedStore<DuckDBConnection> {
  return {
    connection,
    readVersion: () => findStoreVersion(connection),
    async step(version, work) {
      await connection.run('BEGIN TRANSACTION');
      try {
        await work(connection);
        await connection.run(META_SQL);
        const rows = (await connection.runAndReadAll(`SELECT count(*) FROM ${META_TABLE}`)).getRowsJS();
        if (Number(rows[0]?.[0]) === 0) {
          await connection.run(`INSERT INTO ${META_TABLE} VALUES ($1, $2)`, [version, FIRST_BODY_VERSION]);
        } else {
          await connection.run(`UPDATE ${META_TABLE} SET store_version = $1`, [version]);
        }
        await connection.run('COMMIT');
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  };
}

/** Refuses a store whose version this code does not run (newer), without writing anything. */
export async function checkStoreVersion(
  connection: DuckDBConnection,
  migrations: readonly Migration<DuckDBConnection>[] = STORE_MIGRATIONS,
): Promise<void> {
  planMigrations(migrations, (await findStoreVersion(connection)).version, STORE_WHAT, NEWER_STORE_ADVICE);
  const meta = await readStoreMeta(connection);
  if (meta !== null && meta.bodyVersion > BODY_VERSION) throw newerBodies(meta.bodyVersion);
}

function newerBodies(bodyVersion: number): StoreRefusedError {
  return new StoreRefusedError(
    `${STORE_WHAT} holds samples in format version ${bodyVersion}, written by a newer aioscope; this one reads format version ${BODY_VERSION}: ${NEWER_STORE_ADVICE}`,
  );
}

/**
 * Brings the store on `connection` (the write connection) to the newest version and returns its
 * meta row; refuses one that is newer, or whose bodies are not of BODY_VERSION afterwards.
 */
export async function migrateStore(
  connection: DuckDBConnection,
  migrations: readonly Migration<DuckDBConnection>[] = STORE_MIGRATIONS,
): Promise<{ outcome: MigrationOutcome; meta: StoreMeta }> {
  await checkStoreVersion(connection, migrations); // before any step writes
  const outcome = await migrate(versionedStore(connection), migrations, STORE_WHAT, NEWER_STORE_ADVICE);
  const meta = await readStoreMeta(connection);
  if (meta === null) throw new Error(`${STORE_WHAT} has no ${META_TABLE} row after migrating`);
  if (meta.bodyVersion !== BODY_VERSION) {
    // A migration that should have rewritten them is missing: reading would misread them.
    throw new StoreRefusedError(
      `${STORE_WHAT} holds samples in format version ${meta.bodyVersion} at store version ${meta.storeVersion}; this aioscope reads format version ${BODY_VERSION} and has no migration for them`,
    );
  }
  return { outcome, meta };
}
