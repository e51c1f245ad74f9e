import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg, { type ClientConfig } from 'pg';
import type { LiveFrame } from '@aioscope/spec';
import { HistoryStore } from '../../apps/server/src/history/historyStore.ts';
import { DuckDbStoreEngine } from '../../apps/server/src/history/duckdbStoreEngine.ts';
import { PostgresStoreEngine } from '../../apps/server/src/history/pgStore/pgStoreEngine.ts';
import { Recorder } from '../../apps/server/src/history/recorder.ts';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
} from '../../apps/server/src/config/recordingLimits.ts';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { waitForFrame } from './aioscope.ts';
import {
  BENCH_DATA_DIR,
  log,
  rotated,
  sleep,
  using,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { openScannedBenchCluster } from './postgres.ts';
import { SelfCpuMeter } from './proc.ts';
import { bytesPerHour, type HourOnDisk, type RecordedSample } from './recordBytes.ts';
import { fmt, percentiles, summarize } from './stats.ts';

const RATES = [20, 100] as const;
const TARGET_CPU_PERCENT_AT_20 = 2;
const TARGET_MB_PER_HOUR_AT_20 = 100;
const STORE_DIR = path.join(BENCH_DATA_DIR, 'record');
const LIMITS = { rawMs: DEFAULT_RAW_RETENTION_MS, rollupMs: DEFAULT_ROLLUP_RETENTION_MS, maxBytes: DEFAULT_MAX_BYTES };

interface Window {
  round: number;
  rateHz: number;
  recording: boolean;
  nodeCpuPercent: number;
  jitterP95Ms: number;
  jitterP99Ms: number;
  achievedHz: number;
  storeBytes: number;
}

/**
 * Recording cost: a TargetMonitor at 20 and 100 Hz during cold scans, with and without a Recorder
 * and its DuckDB store, interleaved. CPU is this process's (monitor, recorder, DuckDB's threads);
 * the difference of medians is what recording costs. Bytes per hour: see recordBytes.ts.
 */
export async function runRecord(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { server, definition } = await openScannedBenchCluster(cleanups);
    const rounds = Math.max(1, Math.round((options.quick ? 1 : 3) * options.roundsScale));
    const windowSeconds = options.quick ? 8 : 20;
    const conditions = RATES.flatMap((rateHz) => [false, true].map((recording) => ({ rateHz, recording })));
    log(`record: ${rounds} round(s) × ${conditions.length} conditions × ${windowSeconds} s during cold scans`);
    const windows: Window[] = [];
    let sample: RecordedSample | null = null;
    for (let round = 0; round < rounds; round++) {
      for (const { rateHz, recording } of rotated(conditions, round)) {
        const monitor = new TargetMonitor(definition, { sampleRateHz: rateHz, demoWorkload: false });
        const detach = cleanups.add('record monitor', () => monitor.stop());
        const dir = path.join(STORE_DIR, `live-${rateHz}`);
        await rm(dir, { recursive: true, force: true });
        let store: HistoryStore | null = null;
        let recorder: Recorder | null = null;
        try {
          monitor.start();
          await waitForFrame(monitor, 10_000);
          if (recording) {
            store = await HistoryStore.start({
              engine: new DuckDbStoreEngine(dir),
              limits: LIMITS,
              log: { info: log, warn: log },
            });
            recorder = new Recorder(monitor, store, monitor.summary());
            recorder.start(null);
          }
          await sleep(1_000);
          const frames: LiveFrame[] = [];
          const collected: RecordedSample = { frames, deltas: [], processes: [] };
          const offs = [
            monitor.on('frame', (frame) => frames.push(frame)),
            monitor.on('ioDelta', (delta) => collected.deltas.push(delta)),
            monitor.on('processes', (update) => collected.processes.push(update)),
          ];
          const meter = new SelfCpuMeter();
          await sleep(windowSeconds * 1000);
          const cpu = meter.read();
          for (const off of offs) off();
          const period = 1000 / rateHz;
          const intervals = frames.slice(1).map((frame, index) => Math.abs(frame.t - (frames[index]?.t ?? 0) - period));
          const jitter = percentiles(intervals);
          const span = ((frames.at(-1)?.t ?? 0) - (frames[0]?.t ?? 0)) / 1000;
          recorder?.stop();
          await store?.close();
          const window: Window = {
            round,
            rateHz,
            recording,
            nodeCpuPercent: cpu.percentOfCore,
            jitterP95Ms: jitter.p95,
            jitterP99Ms: jitter.p99,
            achievedHz: (frames.length - 1) / span,
            storeBytes: store === null ? 0 : await store.bytesOnDisk(),
          };
          windows.push(window);
          if (rateHz === 20 && recording) sample = collected;
          log(
            `record ${rateHz} Hz ${recording ? 'recording' : 'not recording'} round ${round + 1}: node ${fmt(window.nodeCpuPercent)} %, ` +
              `jitter p95 ${fmt(window.jitterP95Ms, 2)} ms, ${fmt(window.achievedHz)} Hz`,
          );
        } finally {
          recorder?.stop();
          await store?.close();
          await monitor.stop();
          detach();
        }
      }
    }
    if (sample === null) throw new Error('no recorded window to size an hour from');
    const recordedSample: RecordedSample = sample;
    const hourly = new Map<number, HourOnDisk>();
    const sharedHourly = new Map<number, HourOnDisk>();
    const sharedStore = await benchStoreDatabase(server.connectionConfig);
    for (const rateHz of RATES) {
      log(
        `record: writing one synthetic hour at ${rateHz} Hz from ${recordedSample.frames.length} recorded frames into the DuckDB store ...`,
      );
      const dir = path.join(STORE_DIR, `hour-${rateHz}`);
      await rm(dir, { recursive: true, force: true });
      // One row per sample whatever the batches: large batches, as before, keep the run short.
      hourly.set(rateHz, await bytesPerHour(recordedSample, rateHz, () => new DuckDbStoreEngine(dir), 2_000));
      log(`record: ... and into the PostgreSQL store (a database on the bench cluster) ...`);
      await sharedStore.reset();
      sharedHourly.set(
        rateHz,
        await bytesPerHour(recordedSample, rateHz, () => new PostgresStoreEngine(sharedStore.url)),
      );
    }
    await sharedStore.drop();
    await rm(STORE_DIR, { recursive: true, force: true });
    return [...report(windows, hourly, recordedSample, rounds, windowSeconds), ...sharedStoreRows(sharedHourly)];
  }, parent);
}

function report(
  windows: Window[],
  hourly: Map<number, HourOnDisk>,
  sample: RecordedSample,
  rounds: number,
  windowSeconds: number,
): TableRow[] {
  const of = (rateHz: number, recording: boolean, get: (w: Window) => number) =>
    summarize(windows.filter((w) => w.rateHz === rateHz && w.recording === recording).map(get));
  const perRate = RATES.map((rateHz) => {
    const cpuOff = of(rateHz, false, (w) => w.nodeCpuPercent);
    const cpuOn = of(rateHz, true, (w) => w.nodeCpuPercent);
    return {
      rateHz,
      cpuOff,
      cpuOn,
      costPercent: cpuOn.median - cpuOff.median,
      jitterP95Off: of(rateHz, false, (w) => w.jitterP95Ms),
      jitterP95On: of(rateHz, true, (w) => w.jitterP95Ms),
      jitterP99Off: of(rateHz, false, (w) => w.jitterP99Ms),
      jitterP99On: of(rateHz, true, (w) => w.jitterP99Ms),
      mbPerHour: (hourly.get(rateHz)?.bytes ?? NaN) / 1024 ** 2,
      reads: hourly.get(rateHz)?.reads ?? null,
    };
  });
  const meanFrameBytes =
    sample.frames.reduce((sum, f) => sum + JSON.stringify(f).length, 0) / Math.max(1, sample.frames.length);
  writeResult('record', { rounds, windowSeconds, perRate, meanFrameBytes, windows });
  return perRate.map((rate) => {
    const at20 = rate.rateHz === 20;
    const met = at20
      ? rate.costPercent <= TARGET_CPU_PERCENT_AT_20 && rate.mbPerHour <= TARGET_MB_PER_HOUR_AT_20
      : null;
    return {
      measurement: '7. recording cost',
      condition: `${rate.rateHz} Hz, cold scans, recorder + DuckDB store vs none (${rounds} interleaved rounds × ${windowSeconds} s)`,
      result:
        `node CPU ${fmt(rate.cpuOn.median)} % (${fmt(rate.cpuOn.min)}–${fmt(rate.cpuOn.max)}) recording vs ${fmt(rate.cpuOff.median)} % ` +
        `(${fmt(rate.cpuOff.min)}–${fmt(rate.cpuOff.max)}) not: recording costs ${fmt(rate.costPercent, 2)} % of a core; ` +
        `jitter p95 ${fmt(rate.jitterP95On.median, 2)} vs ${fmt(rate.jitterP95Off.median, 2)} ms, p99 ${fmt(rate.jitterP99On.median, 2)} vs ` +
        `${fmt(rate.jitterP99Off.median, 2)} ms; ${fmt(rate.mbPerHour)} MB per hour on disk (frames of ${fmt(meanFrameBytes, 0)} B mean as JSON); ` +
        `read back: 5 min of frames ${fmt(rate.reads?.frames5minMs ?? NaN, 0)} ms, roll-ups of 1 h ${fmt(rate.reads?.rollups1hMs ?? NaN, 0)} ms, ` +
        `of 24 h ${fmt(rate.reads?.rollups24hMs ?? NaN, 0)} ms`,
      target: at20 ? `≤ ${TARGET_CPU_PERCENT_AT_20} % of a core, ≤ ${TARGET_MB_PER_HOUR_AT_20} MB/h` : '–',
      verdict: met === null ? 'n/a' : met ? 'met' : 'MISSED',
    };
  });
}

/** A database of its own on the bench cluster for the shared store, made empty before each hour. */
async function benchStoreDatabase(
  config: ClientConfig,
): Promise<{ url: string; reset: () => Promise<void>; drop: () => Promise<void> }> {
  const database = 'aioscope_store_bench';
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client(config);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const { user, password, host, port } = config;
  const url = `postgres://${encodeURIComponent(String(user))}:${encodeURIComponent(String(password))}@${String(host ?? '127.0.0.1')}:${String(port)}/${database}`;
  return {
    url,
    reset: async () => {
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin(`CREATE DATABASE ${database}`);
    },
    drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  };
}

function sharedStoreRows(hourly: Map<number, HourOnDisk>): TableRow[] {
  writeResult('record-shared-store', { perRate: [...hourly].map(([rateHz, hour]) => ({ rateHz, ...hour })) });
  return [...hourly].map(([rateHz, hour]) => ({
    measurement: '7b. shared store (PostgreSQL)',
    condition: `${rateHz} Hz, one synthetic hour of a recorded window written as the recorder writes (a batch per whole second)`,
    result:
      `${fmt(hour.bytes / 1024 ** 2)} MB per target-hour (tables, TOAST, indexes); ${fmt(hour.writeMsPerBatch, 2)} ms per batch; ` +
      `read back: 5 min of frames ${fmt(hour.reads.frames5minMs, 0)} ms, roll-ups of 1 h ${fmt(hour.reads.rollups1hMs, 0)} ms, ` +
      `of 24 h ${fmt(hour.reads.rollups24hMs, 0)} ms`,
    target: rateHz === 20 ? `near the embedded store's MB/h` : '–',
    verdict: 'n/a',
  }));
}
