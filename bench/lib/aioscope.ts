import { parseConfig, type AppConfig } from '../../apps/server/src/config/config.ts';
import type { DemoTableInfo } from '../../apps/server/src/demo/demoTable.ts';
import { startAioscope, type RunningAioscope } from '../../apps/server/src/app/server.ts';
import type { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import type { LiveFrame } from '@aioscope/spec';
import { BENCH_DATA_DIR, BENCH_TABLE_MB, log, sleep, withTimeout, type Cleanups } from './common.ts';
import { snapshotWebApp, type WebSnapshot } from './dashboard.ts';
import { BackgroundScans, ColdScanner, prepareTable } from './postgres.ts';

/** aioscope running inside this process (startAioscope), watching its embedded server under scan load. */
export interface BenchAioscope {
  running: RunningAioscope;
  monitor: TargetMonitor;
  url: string;
  table: DemoTableInfo;
  scans: BackgroundScans;
  rateHz: number;
  startedAt: number;
  /** The web build every page of this run loads (see snapshotWebApp). */
  web: WebSnapshot;
  close(): Promise<void>;
}

/**
 * The config as the command line would build it (parseConfig fills defaults for any field added
 * later). The bench runs its own load (BackgroundScans): one I/O-bound scanner, not the demo's
 * CPU-bound one, hence --no-demo.
 */
export function benchConfig(sampleRateHz: number): AppConfig {
  const result = parseConfig(
    [
      '--embedded',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--rate',
      String(sampleRateHz),
      '--no-demo',
      '--demo-table-mb',
      String(BENCH_TABLE_MB),
      '--data-dir',
      BENCH_DATA_DIR,
      '--log-level',
      'warn',
    ],
    {},
  );
  if (result.ok !== true) throw new Error(`bench config: ${result.ok === false ? result.error : 'help'}`);
  return result.config;
}

export async function startBenchAioscope(sampleRateHz: number, cleanups: Cleanups): Promise<BenchAioscope> {
  log(`starting aioscope in-process at ${sampleRateHz} Hz (embedded PostgreSQL in .aioscope/bench) ...`);
  const running = await withTimeout(
    startAioscope(benchConfig(sampleRateHz), { info: log, warn: (message) => log(`warn: ${message}`) }),
    180_000,
    'startAioscope',
  );
  let closed = false;
  const closeRunning = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await running.close();
  };
  cleanups.add('aioscope', closeRunning);
  const embedded = running.embedded;
  const monitor = running.monitors.get('embedded');
  if (embedded === null || monitor === undefined) throw new Error('startAioscope gave no embedded target');
  const table = await prepareTable(embedded.connectionConfig, (relative) => embedded.resolveDataPath(relative));
  const scanner = await ColdScanner.open(embedded.connectionConfig, table, cleanups);
  const scans = new BackgroundScans(scanner);
  scans.start();
  cleanups.add('background scans', () => scans.stop());
  await waitForFrame(monitor, 15_000);
  const web = await snapshotWebApp();
  const url = running.url.replace('[::1]', '127.0.0.1');
  log(`aioscope at ${url}`);
  return {
    running,
    monitor,
    url,
    table,
    scans,
    rateHz: sampleRateHz,
    startedAt: performance.now(),
    web,
    async close(): Promise<void> {
      await scans.stop();
      await scanner.close();
      await closeRunning();
    },
  };
}

/** Resolves with the next frame of the monitor; bounded. */
export async function waitForFrame(monitor: TargetMonitor, timeoutMs: number): Promise<LiveFrame> {
  let off: (() => void) | undefined;
  try {
    return await withTimeout(
      new Promise<LiveFrame>((resolve) => {
        off = monitor.on('frame', resolve);
      }),
      timeoutMs,
      'first frame',
    );
  } finally {
    off?.();
  }
}

/** Waits until aioscope has run `seconds` (its history is full), logging why. */
export async function waitForUptime(app: BenchAioscope, seconds: number): Promise<void> {
  const remaining = seconds * 1000 - (performance.now() - app.startedAt);
  if (remaining <= 0) return;
  log(`waiting ${Math.ceil(remaining / 1000)} s until aioscope has ${seconds} s of history ...`);
  await sleep(remaining);
}
