import path from 'node:path';
import { FAST_TICK_SQL, affordableRate } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { MonitorRegistry } from '../../apps/server/src/fleet/monitorRegistry.ts';
import { OverviewTracker } from '../../apps/server/src/fleet/overviewTracker.ts';
import { RateGovernor } from '../../apps/server/src/fleet/rateGovernor.ts';
import { EmbeddedPostgresServer } from '../../apps/server/src/plugins/embeddedPostgres.ts';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { findFreePort } from '../../apps/server/src/system/processes.ts';
import type { FleetTarget } from '../../apps/server/src/targets/targetsFile.ts';
import { waitForFrame } from './aioscope.ts';
import {
  BENCH_DATA_DIR,
  log,
  sleep,
  using,
  verdict,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { connectClient } from './postgres.ts';
import { SelfCpuMeter } from './proc.ts';
import { fmt, median, percentiles } from './stats.ts';

const TARGETS = 20;
const RATE_HZ = 20;
const BUDGET_SHARE = 0.01;
const FLOOR_SQL = 'SELECT count(*) FROM pg_aios';

/**
 * Fleet: 20 monitors at 20 Hz in one process (the registry and the overview tracker aioscope
 * runs), all against one embedded cluster of their own with room for 20 × 3 sessions; the cost
 * budget's rate choice against the measured round trip; and the floor, the fast tick next to a
 * bare `SELECT count(*) FROM pg_aios` on one session, interleaved.
 */
export async function runFleet(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const server = await EmbeddedPostgresServer.start({
      rootDir: path.join(BENCH_DATA_DIR, 'fleet-pg18'),
      port: await findFreePort(),
      settings: { max_connections: '100' },
    });
    cleanups.add('fleet cluster', () => server.stop());
    const seconds = options.quick ? 10 : 30;

    // 1. Twenty targets.
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const registry = new MonitorRegistry({
      defaultRate: RATE_HZ,
      budgetShare: BUDGET_SHARE,
      log: () => undefined,
      create: (target, hz) => new TargetMonitor(target.definition, { sampleRateHz: hz, demoWorkload: false }),
    });
    cleanups.add('fleet monitors', () => registry.close());
    const targets: FleetTarget[] = Array.from({ length: TARGETS }, (_, i) => ({
      definition: { id: `t${i}`, name: `t${i}`, kind: 'external', clientConfig: server.connectionConfig },
      labels: { n: String(i) },
      rate: null,
    }));
    await registry.apply(targets);
    const tracker = new OverviewTracker({ monitors: registry.monitors, changes: registry });
    await Promise.all([...registry.monitors.values()].map((m) => waitForFrame(m, 20_000)));
    await sleep(2_000);
    const frames = new Map<string, LiveFrame[]>();
    const offs = [...registry.monitors.values()].map((m) => {
      const own: LiveFrame[] = [];
      frames.set(m.id, own);
      return m.on('frame', (frame) => own.push(frame));
    });
    const meter = new SelfCpuMeter();
    for (let s = 0; s < seconds; s += 2) {
      await sleep(2_000);
      tracker.overview(); // an overview page polling every 2 s
    }
    const cpu = meter.read();
    offs.forEach((off) => off());
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    const jitter = [...frames.values()].flatMap((own) =>
      own.slice(1).map((f, i) => Math.abs(f.t - (own[i] as LiveFrame).t - 1000 / RATE_HZ)),
    );
    const achieved = [...frames.values()].map((own) => own.length / seconds);
    const fleet = {
      targets: TARGETS,
      rateHz: RATE_HZ,
      seconds,
      cpuPercentPerTarget: cpu.percentOfCore / TARGETS,
      cpuPercentAll: cpu.percentOfCore,
      heapMbPerTarget: (heapAfter - heapBefore) / TARGETS / 1024 / 1024,
      jitterMs: percentiles(jitter),
      achievedHzMedian: median(achieved),
      gcExposed: global.gc !== undefined,
    };
    tracker.close();
    await registry.close();
    log(
      `fleet: ${fmt(fleet.cpuPercentPerTarget, 2)} % of a core per target, jitter p95 ${fmt(fleet.jitterMs.p95, 2)} ms`,
    );

    // 2. The cost budget against a measured round trip: one auto monitor, a short period.
    const auto = new TargetMonitor((targets[0] as FleetTarget).definition, {
      sampleRateHz: RATE_HZ,
      demoWorkload: false,
    });
    cleanups.add('auto monitor', () => auto.stop());
    const sampleMs: number[] = [];
    auto.on('frame', (frame) => sampleMs.push(frame.sampleMs));
    auto.start();
    const rates: number[] = [];
    const governor = new RateGovernor(auto, BUDGET_SHARE, (_from, to) => rates.push(to), 2_000);
    await sleep(options.quick ? 10_000 : 20_000);
    const tail = sampleMs.slice(-Math.max(20, Math.round(sampleMs.length / 4)));
    const meanMs = tail.reduce((a, b) => a + b, 0) / tail.length;
    const settled = auto.summary().sampleRateHz;
    const budget = {
      rates,
      settledHz: settled,
      meanRoundTripMs: meanMs,
      affordableHz: affordableRate(meanMs, BUDGET_SHARE),
      costShareAtSettled: (settled * meanMs) / 1000,
    };
    governor.stop();
    await auto.stop();

    // 3. The floor: the fast tick and a bare count(*) FROM pg_aios on one session, interleaved blocks.
    const client = await connectClient(server.connectionConfig, 'aioscope');
    cleanups.add('floor session', () => client.end());
    const timed = async (name: string, text: string, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        await client.query({ name, text });
        out.push(performance.now() - started);
      }
      return out;
    };
    const tick: number[] = [];
    const floor: number[] = [];
    const one: number[] = [];
    const blocks = options.quick ? 5 : 20;
    for (let b = 0; b < blocks; b++) {
      tick.push(...(await timed('tick', FAST_TICK_SQL, 100)));
      floor.push(...(await timed('floor', FLOOR_SQL, 100)));
      one.push(...(await timed('one', 'SELECT 1', 100)));
    }
    const floorRow = {
      tickMs: median(tick),
      floorMs: median(floor),
      selectOneMs: median(one),
      ratio: median(tick) / median(floor),
    };
    writeResult('fleet', { fleet, budget, floor: floorRow });

    return [
      {
        measurement: 'fleet',
        condition: `${TARGETS} targets × ${RATE_HZ} Hz, 1 cluster, ${seconds} s`,
        result: `node ${fmt(fleet.cpuPercentPerTarget, 2)} % of a core per target (${fmt(fleet.cpuPercentAll)} % in all), heap ${fmt(fleet.heapMbPerTarget, 2)} MB per target, jitter p95 ${fmt(fleet.jitterMs.p95, 2)} / p99 ${fmt(fleet.jitterMs.p99, 2)} ms, achieved ${fmt(fleet.achievedHzMedian)} Hz`,
        target: '≤ 1 % per target',
        verdict: verdict(fleet.cpuPercentPerTarget <= 1),
      },
      {
        measurement: 'fleet',
        condition: `--rate auto, budget ${BUDGET_SHARE * 100} % of a core`,
        result: `settled at ${settled} Hz (path ${[RATE_HZ, ...rates].join('→')}); round trip ${fmt(meanMs, 3)} ms affords ${budget.affordableHz} Hz; cost at settled rate ${fmt(budget.costShareAtSettled * 100, 2)} %`,
        target: `cost ≤ ${BUDGET_SHARE * 100} %`,
        verdict: verdict(budget.costShareAtSettled <= BUDGET_SHARE * 1.1),
      },
      {
        measurement: 'fleet',
        condition: 'floor: fast tick vs SELECT count(*) FROM pg_aios, one session',
        result: `tick ${fmt(floorRow.tickMs, 3)} ms, count(*) ${fmt(floorRow.floorMs, 3)} ms, SELECT 1 ${fmt(floorRow.selectOneMs, 3)} ms: ${fmt(floorRow.ratio, 2)}×`,
        target: '≤ 1.2×',
        verdict: verdict(floorRow.ratio <= 1.2),
      },
    ];
  }, parent);
}
