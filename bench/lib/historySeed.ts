import { rm } from 'node:fs/promises';
import type { RollupAccumulator } from '@aioscope/core';
import type { HistoryEvent, LiveFrame } from '@aioscope/spec';
import { SecondRollups } from '../../apps/server/src/history/secondRollups.ts';
import { closeStoreFile, openStoreFile } from '../../apps/server/src/history/storeFile.ts';
import { RAW_KIND, type PendingRow } from '../../apps/server/src/history/storeEngine.ts';
import { writeBatch } from '../../apps/server/src/history/storeWriter.ts';
import type { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { sleep } from './common.ts';
import type { RecordedSample } from './recordBytes.ts';

/** Rows per transaction while seeding: large enough to be quick, small enough to stay in memory. */
const SEED_BATCH_ROWS = 5_000;

/** What a monitor sent during `seconds`: frames, pg_stat_io deltas and processes tables. */
export async function captureSample(monitor: TargetMonitor, seconds: number): Promise<RecordedSample> {
  const sample: RecordedSample = { frames: [], deltas: [], processes: [] };
  const offs = [
    monitor.on('frame', (frame) => sample.frames.push(frame)),
    monitor.on('ioDelta', (delta) => sample.deltas.push(delta)),
    monitor.on('processes', (update) => sample.processes.push(update)),
  ];
  try {
    await sleep(seconds * 1000);
  } finally {
    for (const off of offs) off();
  }
  if (sample.frames.length < 2) throw new Error(`captured ${sample.frames.length} frames in ${seconds} s`);
  return sample;
}

export interface SeedPlan {
  dir: string;
  targetId: string;
  /** Where the seeded past ends (epoch ms); the live recorder continues from there. */
  end: number;
  /** Raw samples (every frame) in [end - rawMs, end). */
  rawMs: number;
  /** 1 s roll-ups in [end - rollupMs, end). */
  rollupMs: number;
}

export interface SeededStore {
  raw: { from: number; to: number; frames: number; rows: number };
  rollups: { from: number; to: number; rows: number };
  writeMs: number;
}

/**
 * A store as aioscope would have left it after recording a day: the captured sample repeated on a
 * steady time line as raw rows (frames, deltas, processes, each keeping its offset in the sample)
 * for the last `rawMs`, their 1 s roll-ups built by the recorder's own SecondRollups, and those
 * roll-ups repeated back to `rollupMs` (a day of scans like the captured ones). Written by the
 * store's own writer, one transaction per batch, then checkpointed like a long-running store.
 */
export async function seedHistoryStore(sample: RecordedSample, plan: SeedPlan): Promise<SeededStore> {
  const started = performance.now();
  await rm(plan.dir, { recursive: true, force: true });
  const store = await openStoreFile(plan.dir);
  try {
    const chunks = new Set<number>();
    let batch: PendingRow[] = [];
    const flushIfFull = async (force = false): Promise<void> => {
      if (batch.length === 0 || (!force && batch.length < SEED_BATCH_ROWS)) return;
      await writeBatch(store.writer, batch, chunks);
      batch = [];
    };
    const rawFrom = plan.end - plan.rawMs;
    const rollups = new SecondRollups();
    const raw = repeatedSample(sample, rawFrom, plan.end);
    let rawRows = 0;
    for (const row of raw) {
      if (row.kind === RAW_KIND.frame) rollups.addFrame(row.value as LiveFrame);
      else if (row.kind === RAW_KIND.ioDelta) rollups.addIoDelta(row.value as RecordedSample['deltas'][number]);
      batch.push({
        table: 'raw',
        target: plan.targetId,
        kind: row.kind,
        t: row.t,
        hasScans: row.kind === RAW_KIND.frame && (row.value as LiveFrame).scans !== undefined,
        body: JSON.stringify(row.value),
      });
      rawRows++;
      await flushIfFull();
    }
    const seconds = rollups.takeAll().sort((a, b) => a.t - b.t);
    const rollupFrom = plan.end - plan.rollupMs;
    let rollupRows = 0;
    // The raw span's seconds as they are, then copies shifted back by whole spans to the day's start.
    for (let shift = 0; plan.end - shift > rollupFrom; shift += plan.rawMs) {
      for (const acc of seconds) {
        const t = acc.t - shift;
        if (t < rollupFrom) continue;
        const copy: RollupAccumulator = { ...acc, t };
        batch.push({ table: 'rollup', target: plan.targetId, acc: copy });
        rollupRows++;
        await flushIfFull();
      }
    }
    const connected: HistoryEvent = {
      t: rollupFrom,
      kind: 'connected',
      message: 'connected (seeded by npm run bench)',
    };
    batch.push({ table: 'event', target: plan.targetId, event: connected });
    await flushIfFull(true);
    await store.writer.run('CHECKPOINT');
    return {
      raw: { from: rawFrom, to: plan.end, frames: raw.frames, rows: rawRows },
      rollups: { from: rollupFrom, to: plan.end, rows: rollupRows },
      writeMs: performance.now() - started,
    };
  } finally {
    closeStoreFile(store);
  }
}

interface RawRow {
  kind: (typeof RAW_KIND)[keyof typeof RAW_KIND];
  t: number;
  value: unknown;
}

/**
 * The sample's frames, deltas and processes tables, each at its own offset from the sample's first
 * frame, repeated every sample length over [from, to), in time order. Only `t` changes: the scan
 * map restarts with each repetition, as another scan would.
 */
function repeatedSample(sample: RecordedSample, from: number, to: number): RawRow[] & { frames: number } {
  const origin = sample.frames[0]?.t ?? 0;
  const last = sample.frames.at(-1)?.t ?? origin;
  const period = (last - origin) / Math.max(1, sample.frames.length - 1);
  const span = last - origin + period;
  const items: { kind: RawRow['kind']; offset: number; value: { t: number } }[] = [
    ...sample.frames.map((value) => ({ kind: RAW_KIND.frame, offset: value.t - origin, value })),
    ...sample.deltas.map((value) => ({ kind: RAW_KIND.ioDelta, offset: value.t - origin, value })),
    ...sample.processes.map((value) => ({ kind: RAW_KIND.processes, offset: value.t - origin, value })),
  ].filter((item) => item.offset >= 0 && item.offset < span);
  items.sort((a, b) => a.offset - b.offset);
  const rows: RawRow[] = [];
  let frames = 0;
  for (let start = from; start < to; start += span) {
    for (const item of items) {
      const t = Math.round((start + item.offset) * 10) / 10;
      if (t >= to) break;
      rows.push({ kind: item.kind, t, value: { ...item.value, t } });
      if (item.kind === RAW_KIND.frame) frames++;
    }
  }
  return Object.assign(rows, { frames });
}
