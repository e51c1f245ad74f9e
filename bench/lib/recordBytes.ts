import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { rollupStepFor, type RollupAccumulator } from '@aioscope/core';
import { MAX_ROLLUP_POINTS, type IoStatDelta, type LiveFrame } from '@aioscope/spec';
import { HistoryStore } from '../../apps/server/src/history/historyStore.ts';
import { DuckDbStoreEngine } from '../../apps/server/src/history/duckdbStoreEngine.ts';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
} from '../../apps/server/src/config/recordingLimits.ts';
import type { ProcessesUpdate } from '../../apps/server/src/sampler/fastSampler.ts';
import { SecondRollups } from '../../apps/server/src/history/secondRollups.ts';
import { STORE_FILE, closeStoreFile, openStoreFile } from '../../apps/server/src/history/storeFile.ts';
import { RAW_KIND, type PendingRow } from '../../apps/server/src/history/storeEngine.ts';
import { writeBatch } from '../../apps/server/src/history/storeWriter.ts';
import { median } from './stats.ts';

const LIMITS = { rawMs: DEFAULT_RAW_RETENTION_MS, rollupMs: DEFAULT_ROLLUP_RETENTION_MS, maxBytes: DEFAULT_MAX_BYTES };

export interface RecordedSample {
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  processes: ProcessesUpdate[];
}

/**
 * Bytes one hour of recording takes: the frames, deltas and processes tables a live window
 * recorded (cold scans running), repeated with shifted times to fill an hour at `rateHz`, written
 * by the store's own writer with roll-ups, then checkpointed (the WAL folded into compressed
 * blocks) and measured on disk. Repetition flatters compression a little: each frame's text still
 * differs (its t), but scans repeat every window.
 */
export async function bytesPerHour(sample: RecordedSample, rateHz: number, dir: string): Promise<HourOnDisk> {
  await rm(dir, { recursive: true, force: true });
  const store = await openStoreFile(dir);
  const seconds: RollupAccumulator[] = [];
  try {
    const first = sample.frames[0]?.t ?? 0;
    const period = 1000 / rateHz;
    const perHour = 3_600 * rateHz;
    const rollups = new SecondRollups();
    const chunks = new Set<number>();
    let batch: PendingRow[] = [];
    const flush = async (): Promise<void> => {
      const complete = rollups.takeComplete();
      seconds.push(...complete);
      batch.push(...complete.map((acc) => ({ table: 'rollup' as const, target: 'bench', acc })));
      await writeBatch(store.writer, batch, chunks);
      batch = [];
    };
    for (let index = 0; index < perHour; index++) {
      const source = sample.frames[index % sample.frames.length];
      if (source === undefined) break;
      const t = first + index * period;
      const frame = { ...source, t };
      rollups.addFrame(frame);
      batch.push(raw(RAW_KIND.frame, t, frame.scans !== undefined, frame));
      if (index % rateHz === 0) {
        const delta = sample.deltas[(index / rateHz) % Math.max(1, sample.deltas.length)];
        if (delta !== undefined) batch.push(raw(RAW_KIND.ioDelta, t, false, { ...delta, t }));
      }
      if (index % Math.max(1, Math.round(rateHz / 2)) === 0) {
        const update = sample.processes[index % Math.max(1, sample.processes.length)];
        if (update !== undefined) batch.push(raw(RAW_KIND.processes, t, false, { ...update, t }));
      }
      if (batch.length >= 2_000) await flush();
    }
    const last = rollups.takeAll();
    seconds.push(...last);
    batch.push(...last.map((acc) => ({ table: 'rollup' as const, target: 'bench', acc })));
    await flush();
    await store.writer.run('CHECKPOINT');
    const bytes = await storeBytes(dir);
    // 23 more hours of roll-ups (not in the bytes above), for the 24 h range read.
    for (let hour = 1; hour < 24; hour++) {
      const shifted = seconds.map((acc) => ({
        table: 'rollup' as const,
        target: 'bench',
        acc: { ...acc, t: acc.t + hour * 3_600_000 },
      }));
      await writeBatch(store.writer, shifted, chunks);
    }
    closeStoreFile(store);
    return { bytes, reads: await timeReads(dir, first) };
  } catch (error) {
    closeStoreFile(store);
    throw error;
  }
}

export interface HourOnDisk {
  bytes: number;
  /** Milliseconds to read ranges back through StoreHistoryReader (median of 3). */
  reads: { frames5minMs: number; rollups1hMs: number; rollups24hMs: number };
}

async function storeBytes(dir: string): Promise<number> {
  const file = path.join(dir, STORE_FILE);
  let bytes = 0;
  for (const name of [file, `${file}.wal`])
    bytes += await stat(name).then(
      (s) => s.size,
      () => 0,
    );
  return bytes;
}

async function timeReads(dir: string, from: number): Promise<HourOnDisk['reads']> {
  const store = await HistoryStore.start({
    engine: new DuckDbStoreEngine(dir),
    limits: LIMITS,
    log: { info: () => undefined, warn: () => undefined },
  });
  try {
    const reader = store.reader('bench', () => {
      throw new Error('not needed');
    });
    const timed = async (read: () => Promise<unknown>): Promise<number> => {
      const runs: number[] = [];
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        await read();
        runs.push(performance.now() - started);
      }
      return median(runs);
    };
    const day = { from, to: from + 24 * 3_600_000 };
    return {
      frames5minMs: await timed(() => reader.frames({ from, to: from + 5 * 60_000 })),
      rollups1hMs: await timed(() => reader.rollups({ from, to: from + 3_600_000 }, 1_000)),
      rollups24hMs: await timed(() =>
        reader.rollups(day, rollupStepFor(day.from, day.to, undefined, MAX_ROLLUP_POINTS)),
      ),
    };
  } finally {
    await store.close();
  }
}

function raw(kind: (typeof RAW_KIND)[keyof typeof RAW_KIND], t: number, hasScans: boolean, value: unknown): PendingRow {
  return { table: 'raw', target: 'bench', kind, t, hasScans, body: JSON.stringify(value) };
}
