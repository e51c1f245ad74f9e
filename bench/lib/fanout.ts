import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BenchAioscope } from './aioscope.ts';
import {
  log,
  rotated,
  sleep,
  using,
  verdict,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { SelfCpuMeter } from './proc.ts';
import { fmt, median, summarize, type Summary } from './stats.ts';
import { ViewerPool } from './viewerPool.ts';
import type { ViewerStats } from './viewerProtocol.ts';

const VIEWER_COUNTS = [0, 1, 10, 50, 100] as const;
const TARGET_CPU_PERCENT = 100;
const TARGET_BYTES_PER_SECOND = 20_000;
/** monitorEventLoopDelay samples with a timer of this period; its values include the period itself. */
const ELD_RESOLUTION_MS = 10;

interface FanoutWindow {
  round: number;
  viewers: number;
  joinMs: number;
  seconds: number;
  serverCpuPercent: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  bytesPerSecondPerViewer: number;
  framesPerSecondPerViewer: number;
  viewerStats: ViewerStats | null;
}

/**
 * Fan-out: aioscope in this process at 20 Hz, 0/1/10/50/100 socket.io viewers in a child process.
 * Server CPU is this process's (process.cpuUsage: monitor, hub, socket.io); the viewers' CPU is theirs.
 */
export async function runFanout(options: BenchOptions, app: BenchAioscope, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const rounds = Math.max(1, Math.round((options.quick ? 1 : 2) * options.roundsScale));
    const windowSeconds = options.quick ? 4 : 12;
    log(`fan-out: ${rounds} round(s) × viewers ${VIEWER_COUNTS.join('/')} × ${windowSeconds} s at ${app.rateHz} Hz`);
    const pool = await ViewerPool.start(cleanups);
    const windows: FanoutWindow[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const viewers of rotated(VIEWER_COUNTS, round)) {
        const joinStarted = performance.now();
        await pool.setViewers(app.url, viewers);
        const joinMs = performance.now() - joinStarted;
        await sleep(2_000); // snapshots sent and parsed; sockets settled
        const histogram = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
        histogram.enable();
        const meter = new SelfCpuMeter();
        await pool.measureStart();
        await sleep(windowSeconds * 1000);
        const stats = await pool.measureStop();
        const cpu = meter.read();
        histogram.disable();
        const window: FanoutWindow = {
          round,
          viewers,
          joinMs,
          seconds: cpu.wallSeconds,
          serverCpuPercent: cpu.percentOfCore,
          eventLoopDelayP99Ms: Math.max(0, histogram.percentile(99) / 1e6 - ELD_RESOLUTION_MS),
          eventLoopDelayMaxMs: Math.max(0, histogram.max / 1e6 - ELD_RESOLUTION_MS),
          bytesPerSecondPerViewer: viewers === 0 ? 0 : median(stats.bytesPerViewer) / stats.seconds,
          framesPerSecondPerViewer: viewers === 0 ? 0 : median(stats.framesPerViewer) / stats.seconds,
          viewerStats: viewers === 0 ? null : stats,
        };
        windows.push(window);
        log(
          `fan-out ${viewers} viewers round ${round + 1}: server ${fmt(window.serverCpuPercent)} % CPU, ` +
            `loop delay p99 ${fmt(window.eventLoopDelayP99Ms)} ms, ${fmt(window.bytesPerSecondPerViewer / 1000, 2)} kB/s/viewer, ` +
            `${fmt(window.framesPerSecondPerViewer)} frames/s, latency p95 ${fmt(stats.latency.p95)} ms, join ${fmt(joinMs, 0)} ms`,
        );
      }
    }
    await pool.setViewers(app.url, 0);
    await pool.stop();

    const perCount = VIEWER_COUNTS.map((viewers) => {
      const own = windows.filter((window) => window.viewers === viewers);
      const pick = (get: (window: FanoutWindow) => number): Summary => summarize(own.map(get));
      return {
        viewers,
        serverCpuPercent: pick((w) => w.serverCpuPercent),
        eventLoopDelayP99Ms: pick((w) => w.eventLoopDelayP99Ms),
        bytesPerSecondPerViewer: pick((w) => w.bytesPerSecondPerViewer),
        framesPerSecondPerViewer: pick((w) => w.framesPerSecondPerViewer),
        latencyP95Ms: pick((w) => w.viewerStats?.latency.p95 ?? NaN),
        viewerProcessCpuPercent: pick((w) => w.viewerStats?.viewerProcessCpuPercent ?? NaN),
        joinMs: pick((w) => w.joinMs),
        bytesByEvent: own[0]?.viewerStats?.bytesByEvent ?? {},
      };
    });
    const hundred = perCount.find((count) => count.viewers === 100);
    const met =
      hundred === undefined
        ? null
        : hundred.serverCpuPercent.median <= TARGET_CPU_PERCENT &&
          hundred.bytesPerSecondPerViewer.median <= TARGET_BYTES_PER_SECOND;
    writeResult('fanout', {
      measurement: 'fan-out: socket.io viewers in a child process, aioscope in-process',
      rateHz: app.rateHz,
      rounds,
      windowSeconds,
      eventLoopDelay: `monitorEventLoopDelay({ resolution: ${ELD_RESOLUTION_MS} }) p99 minus the ${ELD_RESOLUTION_MS} ms period`,
      bytes: 'engine.io packets received by each viewer: 1 type byte + payload (WebSocket/TCP framing excluded)',
      perCount,
      target: { cpuPercentOfOneCoreMax: TARGET_CPU_PERCENT, bytesPerSecondPerViewerMax: TARGET_BYTES_PER_SECOND },
      met,
      windows,
    });
    return perCount.map((count) => ({
      measurement: '4. fan-out',
      condition: `${count.viewers} viewer${count.viewers === 1 ? '' : 's'} at ${app.rateHz} Hz, scans running`,
      result:
        `server CPU ${fmt(count.serverCpuPercent.median)} % of a core (${fmt(count.serverCpuPercent.min)}–${fmt(count.serverCpuPercent.max)}); ` +
        `loop delay p99 ${fmt(count.eventLoopDelayP99Ms.median)} ms; ` +
        (count.viewers === 0
          ? 'no viewers'
          : `${fmt(count.bytesPerSecondPerViewer.median / 1000, 2)} kB/s per viewer; client latency p95 ${fmt(count.latencyP95Ms.median)} ms`),
      target: count.viewers === 100 ? `≤ 100 % of one core, ≤ 20 kB/s per viewer` : '–',
      verdict: count.viewers === 100 ? verdict(met) : 'n/a',
    }));
  }, parent);
}
