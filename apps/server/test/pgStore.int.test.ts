import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PostgresStoreEngine } from '../src/history/pgStore/pgStoreEngine.ts';
import { PG_SCHEMA, PG_STORE_MIGRATIONS } from '../src/history/pgStore/pgStoreSchema.ts';
import { latestVersion } from '../src/history/migrations.ts';
import { HistoryStore } from '../src/history/historyStore.ts';
import { RAW_KIND } from '../src/history/storeEngine.ts';
import { STORE_FIXTURE_LIMITS } from '../src/history/storeFixture.ts';
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

describe('the shared store written by a recorder', () => {
  it('writes each target’s second as one row, once the second has ended, and every sample in it', async () => {
    const subject = await pgStore('whole seconds');
    const store = await HistoryStore.start({
      engine: subject.engine(),
      limits: STORE_FIXTURE_LIMITS,
      log: { info: () => undefined, warn: () => undefined },
    });
    const sampled: number[] = [];
    const rowsWritten = (): Promise<{ target: string; second: number; frames: number }[]> =>
      inDatabase(
        'store_whole_seconds',
        async (client) =>
          (
            await client.query<{ target: string; second: number; frames: number }>(
              `SELECT target, second, json_array_length(bodies::json) AS frames FROM ${PG_SCHEMA}.raw ORDER BY target, second, first_t`,
            )
          ).rows,
      );
    let endedSecondSeen: boolean;
    try {
      // Two targets at 20 Hz for four seconds, on this clock, as samplers enqueue them.
      const until = Date.now() + 4_000;
      while (Date.now() < until) {
        const t = Date.now();
        sampled.push(t);
        for (const target of ['a', 'b']) {
          store.enqueue({ table: 'raw', target, kind: RAW_KIND.frame, t, hasScans: false, body: `{"t":${String(t)}}` });
        }
        await sleep(50);
      }
      // A second that ended over a second ago reaches the store before the recorder stops (its
      // writes are batched every 250 ms, one commit at a time, which a busy disk may slow).
      const ended = Math.floor((Date.now() - 1_000) / 1000) * 1000 - 1000;
      const askedUntil = Date.now() + 5_000;
      endedSecondSeen = false;
      while (!endedSecondSeen && Date.now() < askedUntil) {
        endedSecondSeen = (await rowsWritten()).some((row) => row.second === ended);
        if (!endedSecondSeen) await sleep(100);
      }
    } finally {
      await store.close();
    }
    expect(endedSecondSeen).toBe(true);
    const rows = await rowsWritten();
    const seconds = new Set(sampled.map((t) => Math.floor(t / 1000) * 1000));
    for (const target of ['a', 'b']) {
      const own = rows.filter((row) => row.target === target);
      // One row per second (a second written mid-way would be two) and nothing lost.
      expect(own.map((row) => row.second)).toEqual([...seconds].sort((x, y) => x - y));
      expect(own.reduce((sum, row) => sum + row.frames, 0)).toBe(sampled.length);
    }
  });
});
