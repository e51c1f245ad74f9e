import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/config.ts';
import { HistoryStore, RETRY_INTERVAL_MS } from './historyStore.ts';
import { DuckDbStoreEngine } from './duckdbStoreEngine.ts';
import type { Migration } from './migrations.ts';
import { STORE_FILE, closeStoreFile, openStoreFile } from './storeFile.ts';
import { STORE_FIXTURE_LIMITS, STORE_FIXTURE_TARGET } from './storeFixture.ts';
import { STORE_MIGRATIONS, STORE_VERSION, findStoreVersion, readStoreMeta } from './storeMigrations.ts';
import { BODY_VERSION, SCHEMA_SQL } from './storeSchema.ts';

const FIXTURE_V1 = path.join(REPO_ROOT, 'apps/server/test/fixtures/history-store-v1');

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aioscope-store-'));
  dirs.push(dir);
  return dir;
}

/** Every file of the folder and a hash of its bytes: what "left as it was" means. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    files[name] = createHash('sha256')
      .update(await readFile(path.join(dir, name)))
      .digest('hex');
  }
  return files;
}

/** Runs `work` on the store file directly, as another program (or another aioscope) would. */
async function withDuckdb<T>(file: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(file);
  try {
    const connection = await instance.connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

async function tablesIn(file: string): Promise<string[]> {
  return withDuckdb(file, async (connection) =>
    (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"))
      .getRowsJS()
      .map(([name]) => String(name))
      .sort(),
  );
}

function logged(): { info: string[]; warn: string[]; log: { info: (m: string) => void; warn: (m: string) => void } } {
  const info: string[] = [];
  const warn: string[] = [];
  return { info, warn, log: { info: (m) => info.push(m), warn: (m) => warn.push(m) } };
}

/**
 * A store as a newer aioscope leaves it: today's tables and a store_meta row at the given versions
 * (store_meta keeps its shape for ever, so that an older aioscope can refuse the store), with its
 * last writes still in the WAL when `keepWal` (killed before a checkpoint).
 */
async function newerStore(dir: string, versions: { store: number; body: number }, keepWal = false): Promise<void> {
  await mkdir(dir, { recursive: true });
  await withDuckdb(path.join(dir, STORE_FILE), async (connection) => {
    for (const sql of SCHEMA_SQL) await connection.run(sql);
    await connection.run('CREATE TABLE store_meta (store_version INTEGER NOT NULL, body_version INTEGER NOT NULL)');
    await connection.run('CHECKPOINT');
    if (keepWal) await connection.run('PRAGMA disable_checkpoint_on_shutdown');
    await connection.run('INSERT INTO store_meta VALUES ($1, $2)', [versions.store, versions.body]);
  });
}

/** The first release's step alone: what the tests of the mechanism build made-up later steps on. */
const FIRST_RELEASE = STORE_MIGRATIONS.slice(0, 1);

describe('the history store’s version', () => {
  it('creates a new store at the current version by running the migrations in order from 0', async () => {
    const dir = await tempDir();
    const { info, log } = logged();
    const store = await HistoryStore.start({ engine: new DuckDbStoreEngine(dir), limits: STORE_FIXTURE_LIMITS, log });
    await store.close();
    expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
    expect(info).toEqual([`history store created at version ${STORE_VERSION}`]);
    const file = path.join(dir, STORE_FILE);
    expect(await withDuckdb(file, readStoreMeta)).toEqual({ storeVersion: STORE_VERSION, bodyVersion: BODY_VERSION });
    expect(await tablesIn(file)).toEqual([
      'baselines',
      'events',
      'rollups',
      'store_meta',
      'target_descriptions',
      'targets',
    ]);

    // The mechanism, on the first release's step and made-up ones after it.
    const dir1 = await tempDir();
    closeStoreFile(await openStoreFile(dir1, FIRST_RELEASE));
    // A later list: only the steps after the store's version run, in order, each recorded.
    const later: Migration<DuckDBConnection>[] = [
      ...FIRST_RELEASE,
      { version: 2, describe: 'adds a log', up: (c) => c.run('CREATE TABLE step_log (version INTEGER)').then() },
      { version: 3, describe: 'logs', up: (c) => c.run('INSERT INTO step_log VALUES (3)').then() },
      { version: 4, describe: 'logs again', up: (c) => c.run('INSERT INTO step_log VALUES (4)').then() },
    ];
    const open = await openStoreFile(dir1, later);
    closeStoreFile(open);
    expect(open.migrated).toEqual({
      from: 1,
      to: 4,
      adopted: false,
      ran: later.slice(1).map(({ version, describe }) => ({ version, describe })),
    });
    expect(open.meta).toEqual({ storeVersion: 4, bodyVersion: BODY_VERSION });
    const logRows = await withDuckdb(path.join(dir1, STORE_FILE), async (c) =>
      (await c.runAndReadAll('SELECT * FROM step_log')).getRowsJS(),
    );
    expect(logRows).toEqual([[3], [4]]);

    // And a new store with that list runs all four from 0.
    const fresh = await tempDir();
    const created = await openStoreFile(fresh, later);
    closeStoreFile(created);
    expect(created.migrated.ran.map((step) => step.version)).toEqual([1, 2, 3, 4]);
  });

  it('a failing step leaves the store at the version before it, its changes rolled back', async () => {
    const dir = await tempDir();
    const file = path.join(dir, STORE_FILE);
    const failing: Migration<DuckDBConnection>[] = [
      ...FIRST_RELEASE,
      { version: 2, describe: 'adds two', up: (c) => c.run('CREATE TABLE two (x INTEGER)').then() },
      {
        version: 3,
        describe: 'adds three, then fails',
        up: async (c) => {
          await c.run('CREATE TABLE three (x INTEGER)');
          await c.run('ALTER TABLE rollups ADD COLUMN half_done DOUBLE');
          await c.run('SELECT * FROM no_such_table');
        },
      },
    ];
    await expect(openStoreFile(dir, failing)).rejects.toThrow(/no_such_table/);
    expect(await withDuckdb(file, readStoreMeta)).toEqual({ storeVersion: 2, bodyVersion: BODY_VERSION });
    expect(await tablesIn(file)).toEqual(['events', 'rollups', 'store_meta', 'targets', 'two']);
    const columns = await withDuckdb(file, async (c) =>
      (await c.runAndReadAll("SELECT column_name FROM duckdb_columns() WHERE table_name = 'rollups'")).getRowsJS(),
    );
    expect(columns.flat()).not.toContain('half_done');
  });

  it('adopts a store from before versions (today’s release) as version 1 and reads it', async () => {
    const dir = await tempDir();
    await cp(FIXTURE_V1, dir, { recursive: true });
    const file = path.join(dir, STORE_FILE);
    expect(await withDuckdb(file, findStoreVersion)).toEqual({ version: 1, unrecorded: true });
    const { info, log } = logged();
    const store = await HistoryStore.start({ engine: new DuckDbStoreEngine(dir), limits: STORE_FIXTURE_LIMITS, log });
    try {
      expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
      expect(info).toEqual([
        'history store from before store versions adopted as version 1',
        `history store migrated from version 1 to ${STORE_VERSION}: ${STORE_MIGRATIONS.slice(1)
          .map((step) => step.describe)
          .join('; ')}`,
      ]);
      const reader = store.reader(STORE_FIXTURE_TARGET, () => {
        throw new Error('not asked');
      });
      const extent = await reader.extent();
      const raw = extent.raw ?? { from: 0, to: 0 };
      expect((await reader.frames({ from: raw.from, to: raw.to + 1 })).frames).toHaveLength(100);
    } finally {
      await store.close();
    }
    expect(await withDuckdb(file, readStoreMeta)).toEqual({ storeVersion: STORE_VERSION, bodyVersion: 1 });
  });

  for (const [keepWal, what] of [
    [false, 'closed cleanly'],
    [true, 'with a WAL, as a newer aioscope killed mid-batch leaves it'],
  ] as const) {
    it(
      `refuses a store written by a newer aioscope (${what}), naming both versions, and leaves it as it was`,
      { timeout: 10_000 },
      async () => {
        const dir = await tempDir();
        await newerStore(dir, { store: STORE_VERSION + 2, body: BODY_VERSION }, keepWal);
        const before = await filesOf(dir);
        // Opening a WAL for writing would merge it into the file: the store is only peeked at.
        expect(Object.keys(before)).toEqual(keepWal ? [STORE_FILE, `${STORE_FILE}.wal`] : [STORE_FILE]);

        const { warn, log } = logged();
        const engine = new DuckDbStoreEngine(dir);
        const store = await HistoryStore.start({ engine, limits: STORE_FIXTURE_LIMITS, log });
        const reason =
          `history store is version ${STORE_VERSION + 2}, written by a newer aioscope; this one reads up to version ` +
          `${STORE_VERSION}: update aioscope, or start with another --data-dir`;
        try {
          expect(store.recordingStatus()).toEqual({ state: 'paused', reason });
          expect(warn).toEqual([`history recording paused: ${reason}; not retried`]);
          // Nothing is read from it either.
          const reader = store.reader(STORE_FIXTURE_TARGET, () => {
            throw new Error('not asked');
          });
          expect((await reader.extent()).raw).toBeNull();
          expect(await engine.read(() => Promise.resolve('read'), 'closed')).toBe('closed');
          store.enqueue({ table: 'event', target: 't', event: { t: 1, kind: 'connected', message: 'x' } });
          if (keepWal) {
            // Not retried: past the retry interval, still refused and untouched.
            await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS + 600));
            expect(warn).toHaveLength(1);
          }
        } finally {
          await store.close();
        }
        expect(await filesOf(dir)).toEqual(before);
      },
    );
  }

  it('refuses a store whose samples are in a newer format, naming both', async () => {
    const dir = await tempDir();
    await newerStore(dir, { store: STORE_VERSION, body: BODY_VERSION + 1 });
    const before = await filesOf(dir);
    const store = await HistoryStore.start({
      engine: new DuckDbStoreEngine(dir),
      limits: STORE_FIXTURE_LIMITS,
      log: logged().log,
    });
    await store.close();
    expect(store.recordingStatus()).toEqual({
      state: 'paused',
      reason:
        `history store holds samples in format version ${BODY_VERSION + 1}, written by a newer aioscope; this one ` +
        `reads format version ${BODY_VERSION}: update aioscope, or start with another --data-dir`,
    });
    expect(await filesOf(dir)).toEqual(before);
  });

  it('refuses a file written by a newer DuckDB instead of moving it aside as corrupt', async () => {
    const dir = await tempDir();
    closeStoreFile(await openStoreFile(dir));
    await bumpDuckdbStorageVersion(path.join(dir, STORE_FILE));
    const before = await filesOf(dir);
    const store = await HistoryStore.start({
      engine: new DuckDbStoreEngine(dir),
      limits: STORE_FIXTURE_LIMITS,
      log: logged().log,
    });
    await store.close();
    const { state, reason } = store.recordingStatus();
    expect(state).toBe('paused');
    expect(reason).toMatch(/^history store was written by a newer DuckDB, so by a newer aioscope \(.*version number/);
    expect(reason).toMatch(/: update aioscope, or start with another --data-dir$/);
    expect(await filesOf(dir)).toEqual(before);
  });

  it('still moves a file it cannot read at all aside and starts a new store at the current version', async () => {
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, STORE_FILE), 'this is not a DuckDB database'.repeat(1000));
    const { warn, log } = logged();
    const store = await HistoryStore.start({ engine: new DuckDbStoreEngine(dir), limits: STORE_FIXTURE_LIMITS, log });
    await store.close();
    expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
    expect(warn.join('\n')).toMatch(/moved aside to .*\.corrupt-/);
    expect(await withDuckdb(path.join(dir, STORE_FILE), readStoreMeta)).toEqual({
      storeVersion: STORE_VERSION,
      bodyVersion: BODY_VERSION,
    });
  });
});

/**
 * Rewrites the storage version in a DuckDB file's main header (after its 8-byte checksum: "DUCK",
 * then the version as a little-endian uint64) and its checksum (DuckDB's: 5381 xor'ed with each
 * 8-byte word times a constant), as a newer DuckDB would have written it.
 */
async function bumpDuckdbStorageVersion(file: string): Promise<void> {
  const bytes = await readFile(file);
  expect(bytes.subarray(8, 12).toString('latin1')).toBe('DUCK');
  const mask = (1n << 64n) - 1n;
  const checksum = (): bigint => {
    let sum = 5381n;
    for (let offset = 8; offset < 4096; offset += 8)
      sum ^= (bytes.readBigUInt64LE(offset) * 0xbf58476d1ce4e5b9n) & mask;
    return sum;
  };
  expect(checksum()).toBe(bytes.readBigUInt64LE(0));
  bytes.writeBigUInt64LE(bytes.readBigUInt64LE(12) + 10n, 12);
  bytes.writeBigUInt64LE(checksum(), 0);
  await writeFile(file, bytes);
}
