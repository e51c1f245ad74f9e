import path from 'node:path';
import { buildApp } from '../../apps/server/src/app/app.ts';
import type { HistoryCatalog } from '../../apps/server/src/history/historyReader.ts';
import { HistoryStore } from '../../apps/server/src/history/historyStore.ts';
import { DuckDbStoreEngine } from '../../apps/server/src/history/duckdbStoreEngine.ts';
import { Recorder } from '../../apps/server/src/history/recorder.ts';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
} from '../../apps/server/src/config/recordingLimits.ts';
import type { BenchAioscope } from './aioscope.ts';
import { BENCH_DATA_DIR, log, type Cleanups } from './common.ts';
import { captureSample, seedHistoryStore, type SeededStore } from './historySeed.ts';

const STORE_DIR = path.join(BENCH_DATA_DIR, 'history-browser');
const LIMITS = { rawMs: DEFAULT_RAW_RETENTION_MS, rollupMs: DEFAULT_ROLLUP_RETENTION_MS, maxBytes: DEFAULT_MAX_BYTES };
/** Every sample for the last 20 minutes: a 15-minute replay range fits with room on both sides. */
const RAW_MS = 20 * 60_000;
/** A day of roll-ups and some: a "24 h" clicked minutes later still finds a full day. */
const ROLLUP_MS = 24 * 3_600_000 + 10 * 60_000;

/** aioscope's app serving a seeded day of history for the bench's live target, on its own port. */
export interface HistoryApp {
  url: string;
  targetId: string;
  seeded: SeededStore;
}

/**
 * The path a user's aioscope takes, minus the process: the app plugin (REST, the built page, the
 * live hub) around the bench's live monitor, with a HistoryCatalog over a DuckDB store that holds a
 * seeded day, and a Recorder appending the live samples to it as the history plugin does (so reads
 * meet the recorder's batches). Separate from the shared aioscope's own store (its data folder is
 * locked by that process's DuckDB).
 */
export async function startHistoryApp(
  app: BenchAioscope,
  captureSeconds: number,
  cleanups: Cleanups,
): Promise<HistoryApp> {
  const targetId = app.monitor.id;
  log(`history-browser: capturing ${captureSeconds} s of ${app.rateHz} Hz samples (scans running) to repeat ...`);
  const sample = await captureSample(app.monitor, captureSeconds);
  const seeded = await seedHistoryStore(sample, {
    dir: STORE_DIR,
    targetId,
    end: Date.now(),
    rawMs: RAW_MS,
    rollupMs: ROLLUP_MS,
  });
  log(
    `history-browser: seeded ${seeded.raw.frames} frames (${seeded.raw.rows} raw rows) and ${seeded.rollups.rows} 1 s roll-ups ` +
      `in ${(seeded.writeMs / 1000).toFixed(1)} s`,
  );
  const store = await HistoryStore.start({
    engine: new DuckDbStoreEngine(STORE_DIR),
    limits: LIMITS,
    log: { info: log, warn: log },
  });
  cleanups.add('history-browser store', () => store.close());
  const recorder = new Recorder(app.monitor, store, app.monitor.summary());
  recorder.start(null);
  cleanups.add('history-browser recorder', () => recorder.stop());
  const reader = store.reader(targetId, () => recorder.describe());
  const history: HistoryCatalog = { get: (id) => (id === targetId ? reader : undefined) };
  const built = await buildApp({ monitors: app.running.monitors, history, webRoot: app.web.dir });
  cleanups.add('history-browser app', () => built.app.close());
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const address = built.app.server.address();
  if (address === null || typeof address !== 'object') throw new Error('history-browser app: no address');
  return { url: `http://127.0.0.1:${address.port}`, targetId, seeded };
}
