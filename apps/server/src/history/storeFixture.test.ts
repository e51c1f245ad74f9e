import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyEventSchema, historyFramesSchema, rollupPointSchema } from '@aioscope/spec';
import { REPO_ROOT } from '../config/config.ts';
import { HistoryStore } from './historyStore.ts';
import { DuckDbStoreEngine } from './duckdbStoreEngine.ts';
import { STORE_FILE } from './storeFile.ts';
import { STORE_FIXTURE_LIMITS, STORE_FIXTURE_TARGET, queriesOf, readBack, type StoreReadBack } from './storeFixture.ts';
import { STORE_VERSION, findStoreVersion, readStoreMeta } from './storeMigrations.ts';
import { BODY_VERSION } from './storeSchema.ts';

/**
 * The stores earlier releases wrote, opened by today's code: each must read back exactly what it
 * read back when it was written (expected.json beside it, made by
 * apps/server/scripts/record-history-store-fixture.ts). A regression guard: it fails the day a
 * change to a table, a roll-up column or a frame field would lose or misread history users have,
 * until a migration carries those stores forward. A body migration changes what is read back:
 * compare with expected.json passed through the same upgrade of each body, never a rewritten file.
 */
const FIXTURES = [
  { name: 'history-store-v1', writtenAt: { version: 1, unrecorded: true } },
  { name: 'history-store-v4', writtenAt: { version: 4, unrecorded: false } },
];

/** The store version whose roll-ups first kept reads by state (storeMigrations.ts). */
const STATES_KEPT_SINCE = 4;

/**
 * What a fixture must read back today: its expected.json, with what later store versions added read
 * as not recorded. Roll-ups written before version 4 kept no reads by state: null, never 0.
 */
function upgraded(expected: StoreReadBack, writtenAtVersion: number): StoreReadBack {
  if (writtenAtVersion >= STATES_KEPT_SINCE) return expected;
  return {
    ...expected,
    rollups: expected.rollups.map((answer) => ({
      ...answer,
      points: answer.points.map((point) => ({ ...point, readsByState: null })),
    })),
  };
}

describe.each(FIXTURES)('the history store fixture $name', ({ name, writtenAt }) => {
  const fixture = path.join(REPO_ROOT, 'apps/server/test/fixtures', name);
  let dir: string;
  let engine: DuckDbStoreEngine;
  let store: HistoryStore;
  let expected: StoreReadBack;

  beforeAll(async () => {
    const written = JSON.parse(await readFile(path.join(fixture, 'expected.json'), 'utf8')) as StoreReadBack;
    expected = upgraded(written, writtenAt.version);
    // Opening migrates: the committed file itself is never opened for writing.
    dir = await mkdtemp(path.join(tmpdir(), `aioscope-${name}-`));
    await cp(fixture, dir, { recursive: true });
    engine = new DuckDbStoreEngine(dir);
    store = await HistoryStore.start({
      engine,
      limits: STORE_FIXTURE_LIMITS,
      log: { info: () => undefined, warn: () => undefined },
    });
  });

  afterAll(async () => {
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('is still the store that release wrote', async () => {
    const instance = await DuckDBInstance.create(path.join(fixture, STORE_FILE), { access_mode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      expect(await findStoreVersion(connection)).toEqual(writtenAt);
      connection.closeSync();
    } finally {
      instance.closeSync();
    }
  });

  it('reads back exactly what it held: extent, frames, roll-ups, events and the target row', async () => {
    expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
    const reader = store.reader(STORE_FIXTURE_TARGET, () => {
      throw new Error('describe() is the live recorder’s; the store’s is its targets row');
    });
    const read = await readBack(reader, () => store.storedDescription(STORE_FIXTURE_TARGET), queriesOf(expected));
    expect(read).toStrictEqual(expected);
    expect(read.frames.map((frames) => frames.frames.length)).toEqual([100, 30]);
    expect(read.frames[1]?.scansBefore).not.toBeNull();
    // Its frames did read pg_aios: a roll-up of them without states is "not recorded", not "no reads".
    expect(read.rollups[0]?.points.some((point) => point.inflightKnown && point.readsInFlight.max > 0)).toBe(true);
    const keptStates = read.rollups[0]?.points.every((point) => point.readsByState !== null);
    expect(keptStates).toBe(writtenAt.version >= STATES_KEPT_SINCE);
  });

  it('holds samples today’s schemas read without losing or changing a field', () => {
    for (const frames of expected.frames) expect(historyFramesSchema.parse(frames)).toStrictEqual(frames);
    for (const { points } of expected.rollups) {
      for (const point of points) expect(rollupPointSchema.parse(point)).toStrictEqual(point);
    }
    for (const { events } of expected.events) {
      for (const event of events) expect(historyEventSchema.parse(event)).toStrictEqual(event);
    }
  });

  it('is recorded at the current versions once opened', async () => {
    const meta = await engine.read((connection) => readStoreMeta(connection), null);
    expect(meta).toEqual({ storeVersion: STORE_VERSION, bodyVersion: BODY_VERSION });
  });
});
