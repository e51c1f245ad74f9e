import { createHash } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type pg from 'pg';
import { PostgresStoreEngine } from '../src/history/pgStore/pgStoreEngine.ts';
import { PG_SCHEMA, PG_STORE_MIGRATIONS } from '../src/history/pgStore/pgStoreSchema.ts';
import { latestVersion } from '../src/history/migrations.ts';
import { describeStoreContract, type StoreUnderTest } from '../src/history/storeContract.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

/** The shared store on a real PostgreSQL 18: one database per store under test, on one cluster. */
let server: EmbeddedPostgresServer;
let admin: pg.Client;

beforeAll(async () => {
  server = await startTestPostgres('pg-store');
  admin = await connect(server);
});

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

function urlOf(database: string): string {
  const { user, password, host, port } = server.connectionConfig;
  return `postgres://${encodeURIComponent(String(user))}:${encodeURIComponent(String(password))}@${String(host ?? '127.0.0.1')}:${String(port)}/${database}`;
}

/** Runs `work` connected to the store's own database, as another program would. */
async function inDatabase<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(server, { database });
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function pgStore(name: string): Promise<StoreUnderTest> {
  const database = `store_${name.replace(/\W/g, '_')}`;
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  return {
    engine: () => new PostgresStoreEngine(urlOf(database)),
    // The database refuses new connections: what a store that is down looks like to a new pool.
    breakStore: () => admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`).then(() => undefined),
    heal: () => admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`).then(() => undefined),
    makeNewer: () =>
      inDatabase(database, (client) =>
        client.query(`UPDATE ${PG_SCHEMA}.store_meta SET store_version = $1`, [latestVersion(PG_STORE_MIGRATIONS) + 1]),
      ).then(() => undefined),
    fingerprint: () =>
      inDatabase(database, async (client) => {
        const hash = createHash('sha256');
        const tables = await client.query<{ name: string }>(
          "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY 1",
          [PG_SCHEMA],
        );
        for (const { name } of tables.rows) {
          const rows = await client.query(`SELECT * FROM ${PG_SCHEMA}.${name} ORDER BY 1`);
          hash.update(name).update(JSON.stringify(rows.rows));
        }
        return hash.digest('hex');
      }),
    remove: () => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).then(() => undefined),
  };
}

describeStoreContract('PostgreSQL 18 (shared)', pgStore);
