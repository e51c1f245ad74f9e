import type { LiveFrame } from '@aioscope/spec';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { waitForFrame } from './aioscope.ts';
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
import { aioscopeBackends, connectClient, openScannedBenchCluster } from './postgres.ts';
import { SelfCpuMeter, processCpuSeconds } from './proc.ts';
import { fmt, percentiles, summarize, type Percentiles } from './stats.ts';

const RATES = [20, 50, 100, 200] as const;
const TARGET_JITTER_P95_MS = 5;
const TARGET_RATE_HZ = 100;

interface Window {
  round: number;
  rateHz: number;
  seconds: number;
  frames: number;
  achievedHz: number;
  sampleMs: Percentiles;
  /** |interval − 1000/rate| on the server clock (frame.t), ms. */
  jitterMs: Percentiles;
  /** Same on this process's clock at delivery (performance.now() in onFrame), ms. */
  deliveryJitterMs: Percentiles;
  skippedTicks: number;
  /** Intervals longer than 1.5 periods (a slot was skipped), and the query time (sampleMs) of the tick that opened each. */
  gaps: number;
  gapOpeningSampleMs: Percentiles;
  /** CPU of the fast-tick backend (the one running pg_aios), % of one core. */
  fastBackendCpuPercent: number;
  /** CPU of every backend with application_name 'aioscope' (fast, stat, resolver), % of one core. */
  allBackendsCpuPercent: number;
  backends: { pid: number; role: string; cpuPercent: number }[];
  /** This process (monitor + frame building + the bench's own scan client), % of one core. */
  nodeCpuPercent: number;
}

/**
 * Sampler: achieved vs requested rate, tick duration, jitter, skipped ticks and the database CPU of
 * aioscope's own backends, at 20/50/100/200 Hz during continuous cold scans. 200 Hz is above the
 * configured maximum: TargetMonitor is constructed directly to probe the ceiling.
 */
export async function runSampler(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { server, definition, scans } = await openScannedBenchCluster(cleanups);
    const control = await connectClient(server.connectionConfig, 'aioscope bench sampler control');
    cleanups.add('sampler control session', () => control.end());
    const rounds = Math.max(1, Math.round((options.quick ? 1 : 2) * options.roundsScale));
    const windowSeconds = options.quick ? 4 : 12;
    log(`sampler: ${rounds} round(s) × ${RATES.length} rates × ${windowSeconds} s during cold scans`);

    const windows: Window[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const rateHz of rotated(RATES, round)) {
        const monitor = new TargetMonitor(definition, { sampleRateHz: rateHz, demoWorkload: false });
        const detach = cleanups.add('sampler monitor', () => monitor.stop());
        try {
          monitor.start();
          await waitForFrame(monitor, 10_000);
          await sleep(1_000); // sessions open, prepared statements and the relation resolver warmed up
          const backends = await aioscopeBackends(control);
          const cpuBefore = new Map(backends.map((backend) => [backend.pid, processCpuSeconds(backend.pid)]));
          const skippedBefore = monitor.currentStatus().skippedTicks;
          const frames: LiveFrame[] = [];
          const deliveredAt: number[] = [];
          const off = monitor.on('frame', (frame) => {
            frames.push(frame);
            deliveredAt.push(performance.now());
          });
          const meter = new SelfCpuMeter();
          const started = performance.now();
          await sleep(windowSeconds * 1000);
          off();
          const seconds = (performance.now() - started) / 1000;
          const node = meter.read();
          const skippedTicks = monitor.currentStatus().skippedTicks - skippedBefore;
          const backendCpu = backends.map((backend) => {
            const before = cpuBefore.get(backend.pid) ?? null;
            const after = processCpuSeconds(backend.pid);
            const cpuPercent = before === null || after === null ? NaN : (100 * (after - before)) / seconds;
            // The fast session also reads process details (2 Hz): its last query may be either.
            const role = /pg_aios|pg_stat_get_activity|left\(query/.test(backend.query)
              ? 'fast tick'
              : /pg_stat_io/.test(backend.query)
                ? 'stat tick'
                : 'other (resolver, settings)';
            return { pid: backend.pid, role, cpuPercent };
          });
          const period = 1000 / rateHz;
          const intervals = frames.slice(1).map((frame, index) => frame.t - (frames[index] as LiveFrame).t);
          const delivered = deliveredAt.slice(1).map((at, index) => at - (deliveredAt[index] as number));
          const gapOpeners = intervals.flatMap((interval, index) =>
            interval > 1.5 * period ? [(frames[index] as LiveFrame).sampleMs] : [],
          );
          const first = frames[0];
          const last = frames[frames.length - 1];
          const span = first === undefined || last === undefined ? NaN : (last.t - first.t) / 1000;
          const window: Window = {
            round,
            rateHz,
            seconds,
            frames: frames.length,
            achievedHz: (frames.length - 1) / span,
            sampleMs: percentiles(frames.map((frame) => frame.sampleMs)),
            jitterMs: percentiles(intervals.map((interval) => Math.abs(interval - period))),
            deliveryJitterMs: percentiles(delivered.map((interval) => Math.abs(interval - period))),
            skippedTicks,
            gaps: gapOpeners.length,
            gapOpeningSampleMs: percentiles(gapOpeners),
            fastBackendCpuPercent: backendCpu
              .filter((backend) => backend.role === 'fast tick')
              .reduce((sum, backend) => sum + backend.cpuPercent, 0),
            allBackendsCpuPercent: backendCpu.reduce((sum, backend) => sum + backend.cpuPercent, 0),
            backends: backendCpu,
            nodeCpuPercent: node.percentOfCore,
          };
          windows.push(window);
          log(
            `sampler ${rateHz} Hz round ${round + 1}: ${fmt(window.achievedHz)} Hz achieved, tick p95 ${fmt(window.sampleMs.p95, 2)} ms, ` +
              `jitter p95 ${fmt(window.jitterMs.p95, 2)} ms, skipped ${skippedTicks}, fast backend ${fmt(window.fastBackendCpuPercent)} % CPU`,
          );
        } finally {
          await monitor.stop();
          detach();
        }
      }
    }

    const perRate = RATES.map((rateHz) => {
      const own = windows.filter((window) => window.rateHz === rateHz);
      const pick = (get: (window: Window) => number) => summarize(own.map(get));
      return {
        rateHz,
        achievedHz: pick((w) => w.achievedHz),
        sampleMsP50: pick((w) => w.sampleMs.p50),
        sampleMsP95: pick((w) => w.sampleMs.p95),
        sampleMsP99: pick((w) => w.sampleMs.p99),
        jitterMsP50: pick((w) => w.jitterMs.p50),
        jitterMsP95: pick((w) => w.jitterMs.p95),
        jitterMsP99: pick((w) => w.jitterMs.p99),
        skippedTicksPerMinute: pick((w) => (60 * w.skippedTicks) / w.seconds),
        fastBackendCpuPercent: pick((w) => w.fastBackendCpuPercent),
        allBackendsCpuPercent: pick((w) => w.allBackendsCpuPercent),
        nodeCpuPercent: pick((w) => w.nodeCpuPercent),
      };
    });
    const hundred = perRate.find((rate) => rate.rateHz === TARGET_RATE_HZ);
    const met =
      hundred === undefined
        ? null
        : hundred.achievedHz.median >= TARGET_RATE_HZ * 0.99 && hundred.jitterMsP95.median <= TARGET_JITTER_P95_MS;
    writeResult('sampler', {
      measurement: 'sampler rate, tick duration, jitter, skipped ticks, backend CPU, during cold scans',
      rounds,
      windowSeconds,
      scansDuringRun: scans.scans,
      scanMs: summarize(scans.scanMs),
      perRate,
      target: { sustainedHz: TARGET_RATE_HZ, jitterP95MsMax: TARGET_JITTER_P95_MS },
      met,
      windows,
    });
    return perRate.map((rate) => ({
      measurement: '2. sampler',
      condition: `${rate.rateHz} Hz requested${rate.rateHz > 100 ? ' (above --rate max, probe)' : ''}, during cold scans`,
      result:
        `${fmt(rate.achievedHz.median)} Hz achieved; tick p50/p95/p99 ${fmt(rate.sampleMsP50.median, 2)}/` +
        `${fmt(rate.sampleMsP95.median, 2)}/${fmt(rate.sampleMsP99.median, 2)} ms; jitter p95 ${fmt(rate.jitterMsP95.median, 2)} ms ` +
        `(${fmt(rate.jitterMsP95.min, 2)}–${fmt(rate.jitterMsP95.max, 2)}), p99 ${fmt(rate.jitterMsP99.median, 2)} ms; ` +
        `skipped ${fmt(rate.skippedTicksPerMinute.median, 0)}/min; fast-tick backend ${fmt(rate.fastBackendCpuPercent.median)} % ` +
        `(all aioscope backends ${fmt(rate.allBackendsCpuPercent.median)} %) of a core; node ${fmt(rate.nodeCpuPercent.median)} %`,
      target:
        rate.rateHz === TARGET_RATE_HZ
          ? `${TARGET_RATE_HZ} Hz sustained, jitter p95 ≤ ${TARGET_JITTER_P95_MS} ms`
          : '–',
      verdict: rate.rateHz === TARGET_RATE_HZ ? verdict(met) : 'n/a',
    }));
  }, parent);
}
