import type {
  HistoryEvent,
  HistoryExtent,
  HistoryFrames,
  HistoryRange,
  RollupPoint,
  TargetSummary,
} from '@aioscope/spec';
import { MonitorEmitter } from '../sampler/monitorEvents.ts';
import { INITIAL_WATCHED_STATE, observe } from './eventDerivation.ts';
import type { HistoryReader } from './historyReader.ts';
import { HistoryStore } from './historyStore.ts';
import { Recorder } from './recorder.ts';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import type { LoadedRecording } from './recordingFileReader.ts';
import { SYNTHETIC_START, syntheticRecording } from './recordingFileFixture.ts';
import type { StoreEngine, TargetDescription } from './storeEngine.ts';
import { RAW_CHUNK_MS, rawChunkOf } from './storeSchema.ts';

/**
 * Test and script only: the history store fixtures (apps/server/test/fixtures/history-store-v*),
 * stores written by a release of aioscope that every later test run opens and reads back exactly.
 * One is written by the recorder through HistoryStore, as a running aioscope writes it, from the
 * synthetic recording below; what it must read back is what the same recording answers in memory
 * (MemoryHistory), checked when the fixture is written and kept beside it as JSON.
 */

export const STORE_FIXTURE_TARGET = 'embedded';
/** Nothing in a fixture ever ages out: it was recorded in 2026 and is read years later. */
export const STORE_FIXTURE_LIMITS: RecordingLimits = {
  rawMs: 100 * 365 * 86_400_000,
  rollupMs: 100 * 365 * 86_400_000,
  maxBytes: 1024 ** 3,
};
const DURATION_MS = 5_000;

/**
 * 5 s at 20 Hz that cross a raw chunk boundary 2 s in (two chunk tables, and a look-back across
 * them), with the events a recorder derives from its pg_stat_io deltas (statsReset) among its own.
 */
export function storeFixtureRecording(): LoadedRecording {
  const boundary = (rawChunkOf(SYNTHETIC_START) + 1) * RAW_CHUNK_MS;
  const recording = syntheticRecording({ start: boundary - 2_000, durationMs: DURATION_MS, rateHz: 20 });
  const events = [...recording.events, ...derivedEvents(recording)].sort((a, b) => a.t - b.t);
  return {
    ...recording,
    header: { ...recording.header, counts: { ...recording.header.counts, events: events.length } },
    events,
  };
}

/** The events the Recorder derives itself from the recording's deltas. */
function derivedEvents(recording: LoadedRecording): HistoryEvent[] {
  return recording.ioDeltas.flatMap((delta) => observe(INITIAL_WATCHED_STATE, { kind: 'ioDelta', delta }).events);
}

/** What a store must read back: the reader's answers to a few queries, and the targets row. */
export interface StoreReadBack {
  targetId: string;
  extent: Pick<HistoryExtent, 'raw' | 'rollups'>;
  description: TargetDescription | null;
  frames: HistoryFrames[];
  rollups: { from: number; to: number; stepMs: number; points: RollupPoint[] }[];
  events: { from: number; to: number; events: HistoryEvent[] }[];
}

export interface StoreQueries {
  frames: HistoryRange[];
  rollups: (HistoryRange & { stepMs: number })[];
  events: HistoryRange[];
}

/**
 * The queries of a recording: all of it, and a range starting just after the chunk boundary
 * (scansBefore and processesBefore come from the chunk before); roll-ups at 1 s and whole.
 */
export function storeFixtureQueries(recording: LoadedRecording): StoreQueries {
  const all = { ...recording.header.range };
  const boundary = rawChunkOf(all.to) * RAW_CHUNK_MS;
  const afterBoundary = { from: boundary + 30, to: boundary + 1_530 };
  return {
    frames: [all, afterBoundary],
    rollups: [
      { ...all, stepMs: 1_000 },
      { from: boundary - 1_000, to: boundary + 2_000, stepMs: 3_000 },
    ],
    events: [all, { from: all.from + 1, to: all.to }],
  };
}

/** The queries an expected read-back was made of (so a test asks exactly what was recorded). */
export function queriesOf(expected: StoreReadBack): StoreQueries {
  return {
    frames: expected.frames.map(({ from, to }) => ({ from, to })),
    rollups: expected.rollups.map(({ from, to, stepMs }) => ({ from, to, stepMs })),
    events: expected.events.map(({ from, to }) => ({ from, to })),
  };
}

export async function readBack(
  reader: HistoryReader,
  description: () => Promise<TargetDescription | null>,
  queries: StoreQueries,
): Promise<StoreReadBack> {
  const { raw, rollups } = await reader.extent();
  const result: StoreReadBack = {
    targetId: reader.targetId,
    extent: { raw, rollups },
    description: await description(),
    frames: [],
    rollups: [],
    events: [],
  };
  for (const range of queries.frames) result.frames.push(await reader.frames(range));
  for (const { stepMs, ...range } of queries.rollups) {
    result.rollups.push({ ...range, stepMs, points: await reader.rollups(range, stepMs) });
  }
  for (const range of queries.events) result.events.push({ ...range, events: await reader.events(range) });
  return result;
}

/**
 * Records `recording` into the engine's store as a running aioscope would: a Recorder on a
 * monitor's emitter, every frame, delta and processes table emitted in time order, the events
 * added with their times, then the recorder stopped and the store closed (which writes the rest).
 */
export async function recordThroughStore(engine: StoreEngine, recording: LoadedRecording): Promise<void> {
  const { header } = recording;
  const store = await HistoryStore.start({
    engine,
    limits: STORE_FIXTURE_LIMITS,
    log: { info: () => undefined, warn: (message) => console.warn(message) },
  });
  if (store.recordingStatus().state !== 'recording') throw new Error(`store: ${store.recordingStatus().reason}`);
  const monitor = new MonitorEmitter((event, error) => {
    throw new Error(`recording ${event}: ${String(error)}`);
  });
  const summary: TargetSummary = {
    id: header.target.id,
    name: header.target.name,
    kind: 'external',
    // Connecting: the recorder derives no event of its own; the recording's events are added below.
    status: { state: 'connecting', since: header.range.from, message: null, lastFrameAt: null, skippedTicks: 0 },
    server: header.server,
    capabilities: header.capabilities,
    sampleRateHz: header.sampleRateHz,
    statRateHz: header.statRateHz,
    demoWorkload: false,
    recording: null,
  };
  const recorder = new Recorder({ id: summary.id, on: monitor.on.bind(monitor) }, store, summary);
  recorder.start(null);
  const samples = [
    ...recording.frames.map((frame) => ({ t: frame.t, emit: () => monitor.emit('frame', frame) })),
    ...recording.ioDeltas.map((delta) => ({ t: delta.t, emit: () => monitor.emit('ioDelta', delta) })),
    ...recording.processes.map((snapshot) => ({ t: snapshot.t, emit: () => monitor.emit('processes', snapshot) })),
  ].sort((a, b) => a.t - b.t);
  for (const sample of samples) sample.emit();
  const derived = new Set(derivedEvents(recording).map((event) => JSON.stringify(event)));
  for (const event of recording.events) {
    if (!derived.has(JSON.stringify(event))) recorder.addEvent(event.kind, event.message, event.t);
  }
  recorder.stop();
  await store.close();
}

/** Deep equality, numbers within a relative 1e-12 (the last bits of a float sum's order). */
export function sameUpToRounding(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) => key in b && sameUpToRounding((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
