import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emptyAccumulator } from '@aioscope/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeStoreFile, openStoreFile, type OpenStore } from './storeFile.ts';
import type { PendingRow } from './storeEngine.ts';
import { RAW_CHUNK_MS, rawChunkOf, rawTableName } from './storeSchema.ts';
import { writeBatch } from './storeWriter.ts';

const T0 = 1_800_000_000_000;
const raw = (t: number, body: string): PendingRow => ({
  table: 'raw',
  target: 'a',
  kind: 0,
  t,
  hasScans: t % 2 === 0,
  body,
});

describe('writeBatch', () => {
  let root: string;
  let store: OpenStore;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aioscope-writer-'));
    store = await openStoreFile(path.join(root, 'history'));
  });
  afterEach(async () => {
    closeStoreFile(store);
    await rm(root, { recursive: true, force: true });
  });

  const rowsOf = async (sql: string): Promise<unknown[][]> => (await store.writer.runAndReadAll(sql)).getRowsJS();

  it('writes every table of a batch, each value in its column', async () => {
    const acc = {
      ...emptyAccumulator(T0),
      frames: 20,
      readsMax: 7,
      waitSums: { 'client backend:DataFileRead': 3 },
      stateFrames: 19,
      stateSums: { ...emptyAccumulator(T0).stateSums, SUBMITTED: 40, COMPLETED_SHARED: 2 },
    };
    const chunks = new Set<number>();
    await writeBatch(
      store.writer,
      [
        raw(T0, '{"t":1}'),
        raw(T0 + 51, '{"t":2}'),
        { table: 'rollup', target: 'a', acc },
        { table: 'event', target: 'a', event: { t: T0 + 5, kind: 'connected', message: 'connected' } },
        { table: 'target', target: 'a', t: T0, description: '{"n":1}' },
        { table: 'target', target: 'a', t: T0 + 1, description: '{"n":2}' },
      ],
      chunks,
    );
    expect(chunks).toEqual(new Set([rawChunkOf(T0)]));
    expect(
      await rowsOf(`SELECT target, kind, t, has_scans, body FROM ${rawTableName(rawChunkOf(T0))} ORDER BY t`),
    ).toEqual([
      ['a', 0, T0, true, '{"t":1}'],
      ['a', 0, T0 + 51, false, '{"t":2}'],
    ]);
    expect(await rowsOf('SELECT target, t, frames, reads_max, waits FROM rollups')).toEqual([
      ['a', T0, 20, 7, '{"client backend:DataFileRead":3}'],
    ]);
    // Store version 4's columns, after waits.
    expect(
      await rowsOf(
        'SELECT state_frames, reads_submitted_sum, reads_completed_shared_sum, reads_staged_sum FROM rollups',
      ),
    ).toEqual([[19, 40, 2, 0]]);
    expect(await rowsOf('SELECT target, t, kind, message FROM events')).toEqual([
      ['a', T0 + 5, 'connected', 'connected'],
    ]);
    expect(await rowsOf('SELECT target, description FROM targets')).toEqual([['a', '{"n":2}']]);
  });

  it('keeps a batch whole or not at all: rows appended before a failure are rolled back', async () => {
    const next = rawChunkOf(T0) + 1;
    // A table of another shape where the second chunk's rows must go: the writer fails on it.
    await store.writer.run(`CREATE TABLE ${rawTableName(next)} (target VARCHAR, t DOUBLE)`);
    const chunks = new Set<number>();
    await expect(
      writeBatch(store.writer, [raw(T0, 'first'), raw(next * RAW_CHUNK_MS, 'second')], chunks),
    ).rejects.toThrow(/columns/);
    // The first chunk's table was created and filled in the same transaction: neither is left.
    expect(await rowsOf(`SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'raw_%'`)).toEqual([
      [rawTableName(next)],
    ]);
    expect(chunks.size).toBe(0);
    // The connection is usable again after the rollback.
    await writeBatch(store.writer, [raw(T0, 'again')], chunks);
    expect(await rowsOf(`SELECT body FROM ${rawTableName(rawChunkOf(T0))}`)).toEqual([['again']]);
  });
});
