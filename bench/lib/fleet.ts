import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FAST_TICK_SQL, affordableRate } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { MonitorRegistry } from '../../apps/server/src/fleet/monitorRegistry.ts';
import { OverviewTracker } from '../../apps/server/src/fleet/overviewTracker.ts';
import { RateGovernor } from '../../apps/server/src/fleet/rateGovernor.ts';
import { EmbeddedPostgresServer } from '../../apps/server/src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { findFreePort } from '../../apps/server/src/system/processes.ts';
import type { FleetTarget } from '../../apps/server/src/targets/targetsFile.ts';
import { waitForFrame } from './aioscope.ts';
import { startCliChild, stopCliChild } from './cliChild.ts';
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
import { processCpuSeconds, processRssBytes, SelfCpuMeter } from './proc.ts';
import { fmt, median, percentiles } from './stats.ts';
import { ViewerPool } from './viewerPool.ts';

const TARGETS = 20;
const RATE_HZ = 20;
const BUDGET_SHARE = 0.01;
const VIEWERS = 10;
const FLOOR_SQL = 'SELECT count(*) FROM pg_aios';
/**
 * The tick's two sources read bare in one round trip: pg_aios, and the backend status array that
 * says which io workers are busy and who waits on AIO (pg_stat_get_activity). Their sum is the
 * floor of any query that reports both.
 */
const TWO_SOURCE_FLOOR_SQL = 'SELECT (SELECT count(*) FROM pg_aios), (SELECT count(*) FROM pg_stat_get_activity(NULL))';
/** "Unchanged": the twenty targets' p95 jitter within 2 ms or 25 % of one target's, whichever is more. */
const JITTER_TOLERANCE = { ms: 2, share: 0.25 };
/** Issue 13: ≤ 30 % of a core for the whole process with twenty targets and ten viewers. */
const WHOLE_PROCESS_GOAL_PERCENT = 30;

/**
 * Fleet: one monitor, then 20, at 20 Hz in this process (the registry and the overview tracker
 * aioscope runs), all against one embedded cluster of their own with room for the sessions; the
 * whole command line with a targets file of 20, recording, ten dashboards, the overview and
 * scrapes; the cost budget's rate choice against the measured round trip; and the floor, the
 * fast tick next to bare reads of its sources on one session, interleaved.
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

    // 1. One target, then twenty, in this process: the jitter of one is the baseline for twenty.
    const single = await sampleMonitors(server, 1, seconds, cleanups);
    const fleet = await sampleMonitors(server, TARGETS, seconds, cleanups);
    const targets = fleet.targets;
    log(
      `fleet: ${fmt(fleet.cpuPercentPerTarget, 2)} % of a core per target, jitter p95 ${fmt(fleet.jitterMs.p95, 2)} ms (one target: ${fmt(single.jitterMs.p95, 2)} ms)`,
    );

    // 1b. The whole process as a user runs it: the command line with a targets file of twenty,
    // recording on, ten dashboards connected, the overview polled and /metrics scraped.
    const whole = await measureWholeProcess(server, seconds, cleanups);
    log(`fleet: whole process ${fmt(whole.cpuPercent)} % of a core with ${whole.viewers} viewers`);

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
    const twoSources: number[] = [];
    const one: number[] = [];
    const blocks = options.quick ? 5 : 20;
    for (let b = 0; b < blocks; b++) {
      tick.push(...(await timed('tick', FAST_TICK_SQL, 100)));
      floor.push(...(await timed('floor', FLOOR_SQL, 100)));
      twoSources.push(...(await timed('two', TWO_SOURCE_FLOOR_SQL, 100)));
      one.push(...(await timed('one', 'SELECT 1', 100)));
    }
    const floorRow = {
      tickMs: median(tick),
      floorMs: median(floor),
      twoSourceFloorMs: median(twoSources),
      selectOneMs: median(one),
      ratio: median(tick) / median(floor),
      ratioToTwoSources: median(tick) / median(twoSources),
    };
    const jitterAllowedMs = Math.max(
      single.jitterMs.p95 + JITTER_TOLERANCE.ms,
      single.jitterMs.p95 * (1 + JITTER_TOLERANCE.share),
    );
    writeResult('fleet', {
      single: { ...single, targets: undefined },
      fleet: { ...fleet, targets: undefined },
      whole,
      budget,
      floor: floorRow,
    });

    return [
      {
        measurement: 'fleet',
        condition: `${TARGETS} targets × ${RATE_HZ} Hz, 1 cluster, ${seconds} s`,
        result: `node ${fmt(fleet.cpuPercentPerTarget, 2)} % of a core per target (${fmt(fleet.cpuPercentAll)} % in all), heap ${fmt(fleet.heapMbPerTarget, 2)} MB per target, achieved ${fmt(fleet.achievedHzMedian)} Hz`,
        target: '≤ 1 % per target',
        verdict: verdict(fleet.cpuPercentPerTarget <= 1),
      },
      {
        measurement: 'fleet',
        condition: `jitter: ${TARGETS} targets vs 1, same run, ${RATE_HZ} Hz`,
        result: `|Δt − ${1000 / RATE_HZ} ms| p95 ${fmt(fleet.jitterMs.p95, 2)} / p99 ${fmt(fleet.jitterMs.p99, 2)} ms with ${TARGETS}; ${fmt(single.jitterMs.p95, 2)} / ${fmt(single.jitterMs.p99, 2)} ms with 1`,
        target: `p95 ≤ ${fmt(jitterAllowedMs, 2)} ms (unchanged)`,
        verdict: verdict(fleet.jitterMs.p95 <= jitterAllowedMs),
      },
      {
        measurement: 'fleet',
        condition: `whole process: --targets (${TARGETS}) × ${RATE_HZ} Hz, recording, ${whole.viewers} viewers, overview every 2 s, /metrics every 15 s`,
        result: `${fmt(whole.cpuPercent)} % of a core (${fmt(whole.cpuPercent / TARGETS, 2)} % per target), RSS ${fmt(whole.rssMb ?? Number.NaN)} MB, viewers got ${fmt(whole.viewerFramesPerSecond)} frames/s each, ${whole.viewerDisconnects} disconnects`,
        target: `≤ ${WHOLE_PROCESS_GOAL_PERCENT} % in all`,
        verdict: verdict(whole.cpuPercent <= WHOLE_PROCESS_GOAL_PERCENT),
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
      {
        // The tick must also say which io workers are busy and who waits on AIO: the backend status
        // array is its second source, and reading both bare is the floor of any query reporting both.
        measurement: 'fleet',
        condition: 'floor: fast tick vs its two sources read bare (pg_aios, pg_stat_get_activity), one round trip',
        result: `tick ${fmt(floorRow.tickMs, 3)} ms, both sources ${fmt(floorRow.twoSourceFloorMs, 3)} ms: ${fmt(floorRow.ratioToTwoSources, 2)}×`,
        target: '≤ 1.2×',
        verdict: verdict(floorRow.ratioToTwoSources <= 1.2),
      },
    ];
  }, parent);
}

interface MonitorsSample {
  targets: FleetTarget[];
  count: number;
  seconds: number;
  cpuPercentPerTarget: number;
  cpuPercentAll: number;
  heapMbPerTarget: number;
  /** |interval between two frames − 50 ms|, from the server's clock in each frame. */
  jitterMs: ReturnType<typeof percentiles>;
  achievedHzMedian: number;
  gcExposed: boolean;
}

/** `count` monitors at RATE_HZ through the registry and overview tracker aioscope runs, for `seconds`. */
async function sampleMonitors(
  server: EmbeddedPostgresServer,
  count: number,
  seconds: number,
  cleanups: Cleanups,
): Promise<MonitorsSample> {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const registry = new MonitorRegistry({
    defaultRate: RATE_HZ,
    budgetShare: BUDGET_SHARE,
    log: () => undefined,
    create: (target, hz) => new TargetMonitor(target.definition, { sampleRateHz: hz, demoWorkload: false }),
  });
  cleanups.add(`${count} monitors`, () => registry.close());
  const targets: FleetTarget[] = Array.from({ length: count }, (_, i) => ({
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
  tracker.close();
  await registry.close();
  return {
    targets,
    count,
    seconds,
    cpuPercentPerTarget: cpu.percentOfCore / count,
    cpuPercentAll: cpu.percentOfCore,
    heapMbPerTarget: (heapAfter - heapBefore) / count / 1024 / 1024,
    jitterMs: percentiles(jitter),
    achievedHzMedian: median([...frames.values()].map((own) => own.length / seconds)),
    gcExposed: global.gc !== undefined,
  };
}

interface WholeProcessSample {
  targets: number;
  viewers: number;
  seconds: number;
  /** The aioscope process's CPU (user + system) over the window, % of one core. */
  cpuPercent: number;
  rssMb: number | null;
  viewerFramesPerSecond: number;
  viewerDisconnects: number;
  overviewPolls: number;
  scrapes: number;
}

/**
 * `npm start -- --targets FILE` in a process of its own (its CPU read from /proc), twenty targets
 * at RATE_HZ on the bench cluster, recording on as by default; VIEWERS socket.io dashboards (in
 * the viewer process, one per target of the first ten), an overview page polling every 2 s and a
 * Prometheus scrape every 15 s.
 */
async function measureWholeProcess(
  server: EmbeddedPostgresServer,
  seconds: number,
  cleanups: Cleanups,
): Promise<WholeProcessSample> {
  const config = server.connectionConfig;
  const dir = path.join(BENCH_DATA_DIR, 'fleet-cli');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'targets.yml');
  const entries = Array.from(
    { length: TARGETS },
    (_, i) =>
      `- name: t${i}\n  host: 127.0.0.1\n  port: ${String(config.port)}\n  user: ${String(config.user)}\n  database: postgres\n`,
  );
  await writeFile(file, entries.join(''));
  const {
    run: app,
    pid,
    url,
  } = await startCliChild(
    'aioscope --targets',
    ['--targets', file, '--rate', String(RATE_HZ), '--port', '0', '--data-dir', path.join(dir, 'data')],
    cleanups,
    { env: { PGPASSWORD: String(config.password) } },
  );
  // Every target live before the window opens.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const overview = (await (await fetch(`${url}/api/overview`)).json()) as {
      rows: { target: { status: { state: string } } }[];
    };
    if (overview.rows.filter((row) => row.target.status.state === 'live').length === TARGETS) break;
    if (Date.now() > deadline) throw new Error('aioscope --targets: not every target went live within 60 s');
    await sleep(500);
  }
  const viewers = await ViewerPool.start(cleanups);
  await viewers.setViewers(
    url,
    VIEWERS,
    Array.from({ length: VIEWERS }, (_, i) => `t${i}`),
  );
  await sleep(3_000);
  await viewers.measureStart();
  const cpuBefore = processCpuSeconds(pid) ?? 0;
  const started = performance.now();
  let overviewPolls = 0;
  let scrapes = 0;
  for (let s = 0; s < seconds; s += 2) {
    await sleep(2_000);
    await (await fetch(`${url}/api/overview`)).arrayBuffer();
    overviewPolls++;
    if (s % 15 < 2) {
      await (await fetch(`${url}/metrics`)).arrayBuffer();
      scrapes++;
    }
  }
  const cpuSeconds = (processCpuSeconds(pid) ?? cpuBefore) - cpuBefore;
  const wallSeconds = (performance.now() - started) / 1000;
  const stats = await viewers.measureStop();
  const rss = processRssBytes(pid);
  await viewers.stop();
  await stopCliChild(app);
  const frames = stats.framesPerViewer.reduce((a, b) => a + b, 0);
  return {
    targets: TARGETS,
    viewers: stats.viewers,
    seconds: wallSeconds,
    cpuPercent: (100 * cpuSeconds) / wallSeconds,
    rssMb: rss === null ? null : rss / 1024 / 1024,
    viewerFramesPerSecond: frames / stats.viewers / stats.seconds,
    viewerDisconnects: stats.disconnects,
    overviewPolls,
    scrapes,
  };
}
