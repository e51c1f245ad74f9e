import { rollupStepFor, type RollupAccumulator } from '@aioscope/core';
import { MAX_ROLLUP_POINTS, type IoStatDelta, type LiveFrame } from '@aioscope/spec';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
} from '../../apps/server/src/config/recordingLimits.ts';
import type { ProcessesUpdate } from '../../apps/server/src/sampler/fastSampler.ts';
import { SecondRollups } from '../../apps/server/src/history/secondRollups.ts';
import { RAW_KIND, type PendingRow, type StoreEngine } from '../../apps/server/src/history/storeEngine.ts';
import { median } from './stats.ts';

const LIMITS = { rawMs: DEFAULT_RAW_RETENTION_MS, rollupMs: DEFAULT_ROLLUP_RETENTION_MS, maxBytes: DEFAULT_MAX_BYTES };

export interface RecordedSample {
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  processes: ProcessesUpdate[];
}

/**
 * Bytes one hour of recording takes in a store: the frames, deltas and processes tables a live
 * window recorded (cold scans running), repeated with shifted times to fill an hour at `rateHz`,
 * written through the store's engine in one batch per whole second of samples (as the recorder
 * writes a store that packs a second into one row: history/openSeconds.ts; `rowsPerBatch` instead
 * for a store whose layout does not depend on the batches, which is faster),
 * with roll-ups, then measured as the store reports its size (DuckDB: file + WAL after the
 * checkpoint of a clean close; PostgreSQL: its tables, TOAST and indexes). Repetition flatters
 * compression a little: each frame's text still differs (its t), but scans repeat every window.
 */
export async function bytesPerHour(
  sample: RecordedSample,
  rateHz: number,
  makeEngine: () => StoreEngine,
  rowsPerBatch?: number,
): Promise<HourOnDisk> {
  const engine = makeEngine();
  await engine.open();
  const seconds: RollupAccumulator[] = [];
  let writeMs = 0;
  let batches = 0;
  try {
    const first = sample.frames[0]?.t ?? 0;
    const period = 1000 / rateHz;
    const perHour = 3_600 * rateHz;
    const perHalfSecond = Math.max(1, Math.round(rateHz / 2)); // processes tables come at 2 Hz
    const rollups = new SecondRollups();
    let batch: PendingRow[] = [];
    const flush = async (all = false): Promise<void> => {
      const complete = all ? rollups.takeAll() : rollups.takeComplete();
      seconds.push(...complete);
      batch.push(...complete.map((acc) => ({ table: 'rollup' as const, target: 'bench', acc })));
      const started = performance.now();
      await engine.write(batch);
      writeMs += performance.now() - started;
      batches++;
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
      if (index % perHalfSecond === 0) {
        const update = sample.processes[index % Math.max(1, sample.processes.length)];
        if (update !== undefined) batch.push(raw(RAW_KIND.processes, t, false, { ...update, t }));
      }
      const secondEnds = Math.floor((t + period) / 1000) !== Math.floor(t / 1000);
      const full = rowsPerBatch === undefined ? secondEnds : batch.length >= rowsPerBatch;
      if (full) await flush();
    }
    await flush(true);
    // Closing checkpoints an embedded store: its size is then that of its compressed blocks.
    await engine.close();
    const measured = makeEngine();
    await measured.open();
    const bytes = await measured.bytesOnDisk();
    // 23 more hours of roll-ups (not in the bytes above), for the 24 h range read.
    for (let hour = 1; hour < 24; hour++) {
      await measured.write(
        seconds.map((acc) => ({
          table: 'rollup' as const,
          target: 'bench',
          acc: { ...acc, t: acc.t + hour * 3_600_000 },
        })),
      );
    }
    const reads = await timeReads(measured, first);
    await measured.close();
    return { bytes, reads, writeMsPerBatch: writeMs / Math.max(1, batches) };
  } catch (error) {
    await engine.close();
    throw error;
  }
}

export interface HourOnDisk {
  bytes: number;
  /** Milliseconds to read ranges back through the engine's reader (median of 3). */
  reads: { frames5minMs: number; rollups1hMs: number; rollups24hMs: number };
  /** Mean time to write one batch (a second's samples, or rowsPerBatch). */
  writeMsPerBatch: number;
}

async function timeReads(engine: StoreEngine, from: number): Promise<HourOnDisk['reads']> {
  const state = {
    limits: LIMITS,
    recordingStatus: () => ({ state: 'recording' as const, reason: null }),
    bytesOnDisk: () => engine.bytesOnDisk(),
  };
  const reader = engine.reader('bench', state, () => {
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
    rollups24hMs: await timed(() => reader.rollups(day, rollupStepFor(day.from, day.to, undefined, MAX_ROLLUP_POINTS))),
  };
}

function raw(kind: (typeof RAW_KIND)[keyof typeof RAW_KIND], t: number, hasScans: boolean, value: unknown): PendingRow {
  return { table: 'raw', target: 'bench', kind, t, hasScans, body: JSON.stringify(value) };
}
