import { afterEach, describe, expect, it } from 'vitest';
import { emptyAccumulator } from '@aioscope/core';
import type { Baseline } from '@aioscope/spec';
import { StoreClosedError } from './baselineShelf.ts';
import { HistoryStore, RETRY_INTERVAL_MS } from './historyStore.ts';
import { NewerStoreError } from './migrations.ts';
import { RAW_KIND, type PendingRow, type StoreEngine, type TargetDescription } from './storeEngine.ts';
import {
  STORE_FIXTURE_LIMITS,
  STORE_FIXTURE_TARGET,
  readBack,
  recordThroughStore,
  sameUpToRounding,
  storeFixtureQueries,
  storeFixtureRecording,
} from './storeFixture.ts';
import { MemoryHistory } from './memoryHistory.ts';

/**
 * Test only: what every history store must do, whatever keeps it. Each store's test file calls
 * describeStoreContract with a way to make a store of its kind; the embedded DuckDB store and the
 * shared PostgreSQL one pass the same tests, so a feature built on HistoryStore works on both.
 */

/** One store of the kind under test, and the faults a test may cause in it. */
export interface StoreUnderTest {
  /** A new engine over this store, as a process started now would open it. */
  engine(): StoreEngine;
  /** Makes the store impossible to open (a folder that cannot be made, a server that refuses) until heal(). */
  breakStore(): Promise<void>;
  heal(): Promise<void>;
  /** Leaves the store as a newer aioscope would: a schema version beyond this code's newest. */
  makeNewer(): Promise<void>;
  /** Changes whenever anything is written to the store: file contents, rows, the version record. */
  fingerprint(): Promise<string>;
  remove(): Promise<void>;
}

const QUIET = { info: (): void => undefined, warn: (): void => undefined };
const HOUR = 3_600_000;

function noDescribe(): never {
  throw new Error('describe() is the live recorder’s; a store’s is its targets row');
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

function rawFrameRow(target: string, t: number): PendingRow {
  const frame = { t, note: `frame at ${t}` };
  return { table: 'raw', target, kind: RAW_KIND.frame, t, hasScans: false, body: JSON.stringify(frame) };
}

export function describeStoreContract(kind: string, makeStore: (name: string) => Promise<StoreUnderTest>): void {
  describe(`the history store contract: ${kind}`, { timeout: 60_000 }, () => {
    const made: StoreUnderTest[] = [];
    const fresh = async (name: string): Promise<StoreUnderTest> => {
      const store = await makeStore(name);
      made.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of made.splice(0)) await store.remove();
    });

    it('reads back exactly what the recorder wrote, as the recording answers in memory, after a restart', async () => {
      const subject = await fresh('read-back');
      const recording = storeFixtureRecording();
      const queries = storeFixtureQueries(recording);
      await recordThroughStore(subject.engine(), recording);
      const memory = new MemoryHistory(STORE_FIXTURE_TARGET, recording);
      const expected = await readBack(memory, () => memory.describe(), queries);
      // Another process: nothing is served from what the writer held in memory.
      const store = await HistoryStore.start({ engine: subject.engine(), limits: STORE_FIXTURE_LIMITS, log: QUIET });
      try {
        expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
        const read = await readBack(
          store.reader(STORE_FIXTURE_TARGET, noDescribe),
          () => store.storedDescription(STORE_FIXTURE_TARGET),
          queries,
        );
        // A multi-second roll-up's means may differ in the last bits: the store adds per-second
        // sums, memory adds per frame. Anything else shows as the full difference.
        if (!sameUpToRounding(JSON.parse(JSON.stringify(read)), JSON.parse(JSON.stringify(expected)))) {
          expect(read).toStrictEqual(expected);
        }
        expect(read.frames.map((frames) => frames.frames.length)).toEqual([100, 30]);
        expect(read.frames[1]?.scansBefore).not.toBeNull();
        expect(await store.storedDescription('never-recorded')).toBeNull();
      } finally {
        await store.close();
      }
    });

    it('keeps raw samples and roll-ups for their own ages, dropping older ones and nothing newer', async () => {
      const subject = await fresh('retention');
      const engine = subject.engine();
      await engine.open();
      const now = Date.UTC(2026, 11, 2, 12);
      const old = now - 3 * HOUR;
      const recent = now - 5 * 60_000;
      const rollup = (t: number): PendingRow => ({
        table: 'rollup',
        target: 'a',
        acc: { ...emptyAccumulator(t), frames: 20, readsSum: 40, readsMax: 3 },
      });
      const event = (t: number): PendingRow => ({
        table: 'event',
        target: 'a',
        event: { t, kind: 'connected', message: `at ${t}` },
      });
      try {
        await engine.write([
          rawFrameRow('a', old),
          rawFrameRow('a', recent),
          rollup(now - 3 * 24 * HOUR),
          rollup(recent),
          event(now - 3 * 24 * HOUR),
          event(recent),
        ]);
        const limits = { rawMs: HOUR, rollupMs: 24 * HOUR, maxBytes: 1024 ** 3 };
        const outcome = await engine.applyRetention(limits, now);
        expect(outcome.usedBytes).toBeGreaterThan(0);
        const state = { limits, recordingStatus: () => ({ state: 'recording' as const, reason: null }) };
        const reader = engine.reader('a', { ...state, bytesOnDisk: () => engine.bytesOnDisk() }, noDescribe);
        const all = { from: now - 30 * 24 * HOUR, to: now };
        const raw = { from: old - 1, to: now };
        expect((await reader.frames(raw)).frames.map((frame) => frame.t)).toEqual([recent]);
        expect((await reader.rollups(all, 1_000)).map((point) => point.t)).toEqual([recent]);
        expect((await reader.events(all)).map((e) => e.t)).toEqual([recent]);
      } finally {
        await engine.close();
      }
    });

    it('keeps baselines (names unique per target) through retention that drops all around them, and a restart', async () => {
      const subject = await fresh('baselines');
      const engine = subject.engine();
      await engine.open();
      const now = Date.UTC(2026, 11, 2, 12);
      const marked = (id: string, target: string, name: string, createdAt: number): Baseline => ({
        id,
        targetId: target,
        targetName: `${target} (name when marked)`,
        name,
        from: now - 2 * HOUR,
        to: now - HOUR,
        bytes: 4,
        createdBy: id === 'b1' ? 'ana' : null,
        createdAt,
      });
      const first = marked('b1', 'a', 'before the upgrade', now);
      const second = marked('b2', 'b', 'before the upgrade', now + 1);
      const file = new Uint8Array([0x1f, 0x8b, 0, 255]);
      try {
        expect(await engine.keepBaseline(first, file)).toBe('kept');
        expect(await engine.keepBaseline(second, new Uint8Array([1, 2, 3, 4]))).toBe('kept');
        // Same name on the same target: refused, and the first one is unchanged.
        expect(
          await engine.keepBaseline({ ...marked('b3', 'a', 'before the upgrade', now + 2) }, new Uint8Array([9])),
        ).toBe('nameTaken');
        await engine.write([rawFrameRow('a', first.from), rawFrameRow('a', now - 60_000)]);
        const outcome = await engine.applyRetention({ rawMs: 1, rollupMs: 1, maxBytes: 1 }, now + HOUR);
        expect(outcome.droppedRawFrom.length).toBeGreaterThan(0);
        await engine.close();
        const reopened = subject.engine();
        await reopened.open();
        try {
          expect(await reopened.listBaselines()).toStrictEqual([second, first]);
          expect(Array.from((await reopened.baselineFile('b1')) ?? [])).toEqual(Array.from(file));
          expect(await reopened.baselineFile('b3')).toBeNull();
          expect(await reopened.removeBaseline('b1')).toBe(true);
          expect(await reopened.removeBaseline('b1')).toBe(false);
          expect(await reopened.baselineFile('b1')).toBeNull();
          expect((await reopened.listBaselines()).map((baseline) => baseline.id)).toEqual(['b2']);
          // Its name is free again once it is removed.
          expect(await reopened.keepBaseline(marked('b4', 'a', 'before the upgrade', now + 3), file)).toBe('kept');
        } finally {
          await reopened.close();
        }
        await expect(reopened.listBaselines()).rejects.toBeInstanceOf(StoreClosedError);
      } finally {
        await engine.close();
      }
    });

    it('describes a target as it was at a moment: each change of its description kept, the latest stored', async () => {
      const subject = await fresh('descriptions');
      const engine = subject.engine();
      await engine.open();
      const described = (version: string): TargetDescription =>
        ({ target: { id: 'a', name: 'a' }, server: { version } }) as unknown as TargetDescription;
      const row = (t: number, version: string): PendingRow => ({
        table: 'target',
        target: 'a',
        t,
        description: JSON.stringify(described(version)),
      });
      try {
        // A restart says the same again (2,000); an upgrade changes it (3,000); a downgrade back (5,000).
        await engine.write([row(1_000, '17.6'), row(2_000, '17.6')]);
        await engine.write([row(3_000, '18.1')]);
        await engine.write([row(5_000, '17.6')]);
        const state = {
          limits: STORE_FIXTURE_LIMITS,
          recordingStatus: () => ({ state: 'recording' as const, reason: null }),
          bytesOnDisk: () => engine.bytesOnDisk(),
        };
        const reader = engine.reader('a', state, () => described('now'));
        const at = async (t: number): Promise<unknown> => (await reader.describeAt(t)).server;
        expect(await at(500)).toEqual({ version: '17.6' }); // before the first one known: the oldest
        expect(await at(2_500)).toEqual({ version: '17.6' });
        expect(await at(3_000)).toEqual({ version: '18.1' });
        expect(await at(4_999)).toEqual({ version: '18.1' });
        expect(await at(9_000)).toEqual({ version: '17.6' });
        expect((await engine.storedDescription('a'))?.server).toEqual({ version: '17.6' });
        // A target the store never described: the reader's own description.
        const other = engine.reader('b', state, () => described('live'));
        expect((await other.describeAt(1_000)).server).toEqual({ version: 'live' });
      } finally {
        await engine.close();
      }
    });

    it('pauses with the reason while the store cannot be opened, keeps what arrives, resumes and writes it', async () => {
      const subject = await fresh('paused');
      await subject.breakStore();
      const changes: string[] = [];
      const store = await HistoryStore.start({
        engine: subject.engine(),
        limits: { ...STORE_FIXTURE_LIMITS },
        log: QUIET,
        onRecordingChange: (status) => changes.push(status.state),
      });
      try {
        const paused = store.recordingStatus();
        expect(paused.state).toBe('paused');
        expect(paused.reason).not.toBe('');
        const reader = store.reader('a', noDescribe);
        expect((await reader.extent()).recording).toEqual(paused);
        const t = Date.now();
        store.enqueue(rawFrameRow('a', t));
        await subject.heal();
        await waitFor(
          () => store.recordingStatus().state === 'recording',
          'recording to resume',
          RETRY_INTERVAL_MS * 4,
        );
        await waitFor(async () => (await reader.extent()).raw !== null, 'the held frame to be written');
        expect((await reader.frames({ from: t, to: t + 1 })).frames).toEqual([{ t, note: `frame at ${t}` }]);
        expect(changes).toEqual(['paused', 'recording']);
      } finally {
        await store.close();
      }
    });

    it('holds the rows while its write gate is shut (ownership unconfirmed), writes them once open, never a discarded target’s', async () => {
      const subject = await fresh('gated');
      let gate: string | null = 'ownership not confirmed by the store';
      const store = await HistoryStore.start({
        engine: subject.engine(),
        limits: { ...STORE_FIXTURE_LIMITS },
        log: QUIET,
        writeGate: () => gate,
      });
      try {
        const kept = store.reader('kept', noDescribe);
        const lost = store.reader('lost', noDescribe);
        // Past any open second, so a whole-second engine writes them as soon as it may.
        const t = Date.now() - 5_000;
        store.enqueue(rawFrameRow('kept', t));
        store.enqueue(rawFrameRow('lost', t));
        await waitFor(() => store.recordingStatus().reason === gate, 'the gate’s reason as the recording status');
        expect(store.recordingStatus().state).toBe('paused');
        // Two batch intervals: nothing written while the gate is shut (a paused store reads as
        // empty through its own readers, so the store itself is compared).
        const before = await subject.fingerprint();
        await sleep(2 * store.engine.batching.intervalMs + 500);
        expect(await subject.fingerprint()).toBe(before);
        expect(store.discard(new Set(['lost']))).toBe(1);
        gate = null;
        await waitFor(async () => (await kept.extent()).raw !== null, 'the held frame to be written');
        expect(store.recordingStatus()).toEqual({ state: 'recording', reason: null });
        expect((await kept.frames({ from: t, to: t + 1 })).frames).toEqual([{ t, note: `frame at ${t}` }]);
        expect((await lost.extent()).raw).toBeNull();
      } finally {
        await store.close();
      }
    });

    it('refuses a store a newer aioscope wrote, naming both versions, and writes nothing to it', async () => {
      const subject = await fresh('newer');
      const engine = subject.engine();
      await engine.open();
      await engine.close();
      await subject.makeNewer();
      const before = await subject.fingerprint();
      await expect(subject.engine().open()).rejects.toBeInstanceOf(NewerStoreError);
      const store = await HistoryStore.start({ engine: subject.engine(), limits: STORE_FIXTURE_LIMITS, log: QUIET });
      try {
        const status = store.recordingStatus();
        expect(status.state).toBe('paused');
        expect(status.reason).toMatch(/is version \d+, written by a newer aioscope; this one reads up to version \d+/);
        store.enqueue(rawFrameRow('a', Date.now()));
        await sleep(RETRY_INTERVAL_MS + 600);
        expect(store.recordingStatus()).toEqual(status);
      } finally {
        await store.close();
      }
      expect(await subject.fingerprint()).toBe(before);
    });
  });
}
