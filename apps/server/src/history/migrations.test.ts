import { describe, expect, it } from 'vitest';
import {
  NewerStoreError,
  StoreRefusedError,
  checkMigrations,
  latestVersion,
  migrate,
  planMigrations,
  type FoundVersion,
  type Migration,
  type VersionedStore,
} from './migrations.ts';

/** A store in memory: its recorded version and what its steps did, in order. */
interface FakeConnection {
  version: number | null;
  tables: string[];
  log: string[];
}

const creates = (version: number, table: string): Migration<FakeConnection> => ({
  version,
  describe: `creates ${table}`,
  up: (connection) => {
    connection.tables.push(table);
    return Promise.resolve();
  },
});

const LIST = [creates(1, 'samples'), creates(2, 'rollups'), creates(3, 'events')];

/** Each step on a copy, kept only when the step and the version both succeed: a transaction. */
function fakeStore(connection: FakeConnection, found: FoundVersion): VersionedStore<FakeConnection> {
  return {
    connection,
    readVersion: () => Promise.resolve(found),
    async step(version, work) {
      const copy = { ...connection, tables: [...connection.tables], log: [...connection.log] };
      await work(copy);
      copy.version = version;
      copy.log.push(`recorded ${version}`);
      Object.assign(connection, copy);
    },
  };
}

describe('planMigrations', () => {
  it('runs every step after the store’s version, in order, none skipped', () => {
    expect(planMigrations(LIST, 0).map((m) => m.version)).toEqual([1, 2, 3]);
    expect(planMigrations(LIST, 1).map((m) => m.version)).toEqual([2, 3]);
    expect(planMigrations(LIST, 2).map((m) => m.version)).toEqual([3]);
    expect(planMigrations(LIST, 3)).toEqual([]);
    expect(latestVersion(LIST)).toBe(3);
    expect(latestVersion([])).toBe(0);
  });

  it('refuses a store newer than the list, naming both versions', () => {
    const plan = (): unknown => planMigrations(LIST, 5, 'history store', 'update aioscope');
    expect(plan).toThrow(NewerStoreError);
    expect(plan).toThrow(
      'history store is version 5, written by a newer aioscope; this one reads up to version 3: update aioscope',
    );
    try {
      plan();
    } catch (error) {
      expect(error).toBeInstanceOf(StoreRefusedError);
      expect(error).toMatchObject({ storeVersion: 5, knownVersion: 3 });
    }
  });

  it('refuses a version aioscope never writes', () => {
    for (const version of [-1, 1.5, Number.NaN]) {
      expect(() => planMigrations(LIST, version)).toThrow(StoreRefusedError);
    }
  });

  it('rejects a list with a gap, a repeat or out of order: a mistake in the code', () => {
    const cases = [
      [creates(1, 'a'), creates(3, 'c')],
      [creates(1, 'a'), creates(1, 'b')],
      [creates(2, 'b'), creates(1, 'a')],
      [creates(0, 'z')],
    ];
    for (const list of cases) {
      expect(() => checkMigrations(list)).toThrow(/versions are 1, 2, 3… in order, none skipped/);
      expect(() => planMigrations(list, 0)).toThrow(/none skipped/);
    }
    expect(() => checkMigrations(LIST)).not.toThrow();
  });
});

describe('migrate', () => {
  it('creates a new store by running every step from 0 in order, each recording its version', async () => {
    const connection: FakeConnection = { version: null, tables: [], log: [] };
    const outcome = await migrate(fakeStore(connection, { version: 0, unrecorded: true }), LIST);
    expect(connection.tables).toEqual(['samples', 'rollups', 'events']);
    expect(connection.log).toEqual(['recorded 1', 'recorded 2', 'recorded 3']);
    expect(outcome).toEqual({
      from: 0,
      to: 3,
      adopted: false,
      ran: LIST.map(({ version, describe }) => ({ version, describe })),
    });
  });

  it('adopts a store from before versions at the version of its tables, then runs what follows', async () => {
    const connection: FakeConnection = { version: null, tables: ['samples'], log: [] };
    const outcome = await migrate(fakeStore(connection, { version: 1, unrecorded: true }), LIST);
    expect(connection.log).toEqual(['recorded 1', 'recorded 2', 'recorded 3']);
    expect(connection.tables).toEqual(['samples', 'rollups', 'events']);
    expect(outcome).toMatchObject({ from: 1, to: 3, adopted: true });
  });

  it('stops at a failing step, the store left at the version before it', async () => {
    const failing: Migration<FakeConnection> = {
      version: 3,
      describe: 'fails half-way',
      up: (c) => {
        c.tables.push('half');
        return Promise.reject(new Error('disk full'));
      },
    };
    const connection: FakeConnection = { version: 1, tables: ['samples'], log: [] };
    const store = fakeStore(connection, { version: 1, unrecorded: false });
    await expect(migrate(store, [creates(1, 'samples'), creates(2, 'rollups'), failing])).rejects.toThrow('disk full');
    expect(connection).toEqual({ version: 2, tables: ['samples', 'rollups'], log: ['recorded 2'] });
  });

  it('refuses a newer store before running or recording anything', async () => {
    const connection: FakeConnection = { version: 4, tables: ['x'], log: [] };
    await expect(migrate(fakeStore(connection, { version: 4, unrecorded: false }), LIST)).rejects.toThrow(
      NewerStoreError,
    );
    expect(connection).toEqual({ version: 4, tables: ['x'], log: [] });
  });
});
