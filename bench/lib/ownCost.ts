import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { SourceMap, type SourceMapPayload } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { ClientConfig } from 'pg';
import { START_ENTRY, startCliChild, stopCliChild } from './cliChild.ts';
import { PEER_REFRESH_SECONDS, peerMonitorAvailable, startPeerMonitor } from './peerMonitor.ts';
import { FLOOR_ENTRY, startRoundTripFloor } from './roundTripFloor.ts';
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
import {
  briefRanking,
  samplesAfter,
  summarizeProfile,
  type CpuProfile,
  type ProfileNode,
  type ProfileSummary,
} from './cpuProfile.ts';
import { openScannedBenchCluster } from './postgres.ts';
import { fileURLToPath } from 'node:url';
import { ensureStartBuilt } from '../../apps/server/scripts/ensureStartBuilt.ts';
import { processCpuSeconds, processRssBytes, threadCpuSeconds, type ThreadCpu } from './proc.ts';
import { moduleOf } from './serverProfile.ts';
import { nodeVersionOf } from './nodeBinary.ts';
import { fmt, max, median, min } from './stats.ts';

/** Issue 24: one watched server at the defaults, recording on, no viewer, ≤ 2.5 % of a core. */
export const OWN_COST_GOAL_PERCENT = 2.5;
/** Start-up (loading the bundle, opening the store, the first reads of the server) is over by then. */
const SETTLE_MS = 15_000;
/**
 * When the steady windows begin, counted from the start. At 20 Hz a function called once per tick
 * reaches V8's optimising tier only after minutes, and the old generation grows until the caches
 * are full: until then V8's worker threads compile and mark (0.5–1 % of a core on Node 20), which a
 * server that runs for days pays once. Measured over 16 minutes (bench/README.md §10), the process
 * settles between the third and the fifth minute.
 */
const STEADY_AFTER_MS = 5 * 60_000;
/** Kept out of the profiled window before the shutdown began (the signal's delivery, timers). */
const SHUTDOWN_MARGIN_MS = 500;

export interface OwnCostOptions {
  /** Windows of the first minutes, from the settle on: what a process just started costs. */
  earlyWindows: number;
  earlyWindowSeconds: number;
  /** Windows from steadyAfterMs on: what the goal is judged on. */
  windows: number;
  windowSeconds: number;
  steadyAfterMs: number;
  /** Seconds of CPU profile (`--cpu-prof`) of one more recording process, run beside the measured ones and read at the end; 0 = none. */
  profileSeconds: number;
  /** Another node binary the recording command line also runs on (--own-cost-node); null = none. */
  otherNode: string | null;
  /** Another build of the command line, recording beside this one (--own-cost-baseline); null = none. */
  baseline: string | null;
}

interface Variant {
  /** 'recording', '--no-record', or 'recording, node v24.…' */
  name: string;
  args: string[];
  recording: boolean;
  /** The node binary; this process's when absent. */
  node?: string;
  /** What node runs: `npm start`'s bundle unless this is the baseline. */
  entry: readonly string[];
  /** aioscope's command line; the round-trip floor (roundTripFloor.mjs); or the nearest peer. */
  kind: 'aioscope' | 'floor' | 'peer';
}

/** How node runs a command line given by its file: a cli.ts through tsx, a cli.js with its source maps. */
function entryOf(cli: string): string[] {
  return cli.endsWith('.ts') ? ['--import', 'tsx', cli] : ['--enable-source-maps', cli];
}

function variantsOf(otherNode: string | null, baseline: string | null): Variant[] {
  const variants: Variant[] = [
    { name: 'recording', args: [], recording: true, entry: START_ENTRY, kind: 'aioscope' },
    { name: '--no-record', args: ['--no-record'], recording: false, entry: START_ENTRY, kind: 'aioscope' },
  ];
  if (otherNode !== null) {
    const version = nodeVersionOf(otherNode);
    variants.push({
      name: `recording, node ${version}`,
      args: [],
      recording: true,
      node: otherNode,
      entry: START_ENTRY,
      kind: 'aioscope',
    });
  }
  if (baseline !== null) {
    variants.push({
      name: `recording, baseline ${baseline}`,
      args: [],
      recording: true,
      entry: entryOf(baseline),
      kind: 'aioscope',
    });
  }
  // What the fast statement's round trips alone cost on each node measured: the part of the
  // figures above that no code of aioscope's can remove short of another client or protocol.
  for (const node of [process.execPath, ...(otherNode === null ? [] : [otherNode])]) {
    const version = nodeVersionOf(node);
    variants.push({
      name: `floor: the fast statement alone at 20 Hz, node ${version}`,
      args: [],
      recording: false,
      node,
      entry: FLOOR_ENTRY,
      kind: 'floor',
    });
  }
  // The yardstick, in the same windows: the nearest peer at its fastest refresh.
  if (peerMonitorAvailable()) {
    variants.push({
      name: `peer: pg_activity --refresh ${PEER_REFRESH_SECONDS}`,
      args: [],
      recording: false,
      entry: [],
      kind: 'peer',
    });
  }
  return variants;
}

/** CPU of a window by thread: the main thread (tid = pid) and the others, grouped by name. */
interface ThreadShares {
  main: number;
  /** Node 22+ names its threads (V8Worker, libuv-worker, …); Node 20's are all "node". */
  others: Record<string, number>;
}

function threadShares(pid: number, before: ThreadCpu[], after: ThreadCpu[], wallSeconds: number): ThreadShares {
  const start = new Map(before.map((thread) => [thread.tid, thread.seconds]));
  const shares: ThreadShares = { main: 0, others: {} };
  for (const thread of after) {
    const percent = (100 * (thread.seconds - (start.get(thread.tid) ?? 0))) / wallSeconds;
    if (thread.tid === pid) shares.main = percent;
    else shares.others[thread.name] = (shares.others[thread.name] ?? 0) + percent;
  }
  return shares;
}

/** CPU of each variant over a run of windows. */
interface WindowsResult {
  windows: number;
  windowSeconds: number;
  /** When the first window began, seconds after the processes started. */
  fromSeconds: number;
  /** % of one core per window, by variant. */
  cpuPercent: Record<string, number[]>;
  /** The same split by thread, per window, by variant. */
  threads: Record<string, ThreadShares[]>;
  loadAverage: number[][];
}

export interface OwnCostResult extends WindowsResult {
  nodeVersion: string;
  /** The first minutes after the settle (the steady windows are the result's own fields). */
  early: WindowsResult;
  rssMb: Record<string, number | null>;
  profile: ProfileResult | null;
  /** The same profile of the baseline (--own-cost-baseline), run beside it. */
  baselineProfile: ProfileResult | null;
}

type ProfileResult = ProfileSummary & { seconds: number; busyPercent: number };

/** `postgres://` URL of a cluster, as a user passes it to --db. */
function databaseUrl(config: ClientConfig): string {
  const user = encodeURIComponent(String(config.user));
  const password = encodeURIComponent(String(config.password ?? ''));
  return `postgres://${user}:${password}@${String(config.host)}:${String(config.port)}/${String(config.database)}`;
}

/**
 * The real command line at the defaults (`--db URL`, 20 Hz, recording on or `--no-record`), each
 * in a process of its own watching the same cluster under cold scans, no viewer. Both run at once
 * and each window reads both processes' CPU from /proc: the two variants see the same load in the
 * same seconds, which alternating windows on this shared machine would not give them.
 */
export async function measureOwnCost(
  config: ClientConfig,
  options: OwnCostOptions,
  parent: Cleanups,
): Promise<OwnCostResult> {
  return using(async (cleanups) => {
    const dir = path.join(BENCH_DATA_DIR, 'own-cost');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const common = ['--db', databaseUrl(config), '--port', '0'];
    // As `npm start`'s prestart: the bundle measured is the sources as they are.
    await ensureStartBuilt(false);
    const variants = variantsOf(options.otherNode, options.baseline);
    const start = async (variant: Variant, index: number): Promise<{ pid: number; stop(): Promise<void> }> => {
      if (variant.kind === 'peer') return startPeerMonitor(config, cleanups);
      const child =
        variant.kind === 'floor'
          ? await startRoundTripFloor(
              `own cost: ${variant.name}`,
              [databaseUrl(config)],
              cleanups,
              variant.node === undefined ? {} : { node: variant.node },
            )
          : await startCliChild(
              `aioscope ${variant.name}`,
              [...common, '--data-dir', path.join(dir, `data-${index}`), ...variant.args],
              cleanups,
              variant.node === undefined ? { entry: variant.entry } : { node: variant.node, entry: variant.entry },
            );
      return { pid: child.pid, stop: () => stopCliChild(child.run) };
    };
    const running = await Promise.all(
      variants.map(async (variant, index) => ({ variant, ...(await start(variant, index)) })),
    );
    // The profiled processes run through the same minutes as the measured ones (their profile is
    // of the steady state too), outside the windows: the profiler's own sampling inflates them.
    const profiledArgs = (name: string): string[] => [...common, '--data-dir', path.join(dir, `data-${name}`)];
    const profiled =
      options.profileSeconds > 0
        ? await Promise.all([
            startProfiled(profiledArgs('profile'), START_ENTRY, path.join(dir, 'profile'), cleanups),
            options.baseline === null
              ? null
              : startProfiled(
                  profiledArgs('profile-baseline'),
                  entryOf(options.baseline),
                  path.join(dir, 'profile-baseline'),
                  cleanups,
                ),
          ])
        : [null, null];
    const startedAt = performance.now();
    log(`own cost: ${running.length} processes started; settling ${SETTLE_MS / 1000} s`);
    await sleep(SETTLE_MS);
    const measure = async (phase: string, count: number, seconds: number): Promise<WindowsResult> => {
      const result: WindowsResult = {
        windows: count,
        windowSeconds: seconds,
        fromSeconds: (performance.now() - startedAt) / 1000,
        cpuPercent: Object.fromEntries(variants.map((v) => [v.name, []])),
        threads: Object.fromEntries(variants.map((v) => [v.name, []])),
        loadAverage: [],
      };
      for (let window = 0; window < count; window++) {
        const before = running.map(({ pid }) => ({ process: processCpuSeconds(pid), threads: threadCpuSeconds(pid) }));
        const started = performance.now();
        await sleep(seconds * 1000);
        const wallSeconds = (performance.now() - started) / 1000;
        running.forEach(({ variant, pid }, index) => {
          const cpu = (processCpuSeconds(pid) ?? Number.NaN) - (before[index]?.process ?? Number.NaN);
          result.cpuPercent[variant.name]?.push((100 * cpu) / wallSeconds);
          result.threads[variant.name]?.push(
            threadShares(pid, before[index]?.threads ?? [], threadCpuSeconds(pid), wallSeconds),
          );
        });
        result.loadAverage.push(os.loadavg().map((value) => Math.round(value * 100) / 100));
        log(
          `own cost, ${phase} window ${window + 1}/${count}: ` +
            variants.map((v) => `${v.name} ${fmt(result.cpuPercent[v.name]?.at(-1) ?? Number.NaN, 2)} %`).join(', ') +
            `; load ${result.loadAverage.at(-1)?.join(' ')}`,
        );
      }
      return result;
    };
    const early = await measure('first minutes', options.earlyWindows, options.earlyWindowSeconds);
    const untilSteady = options.steadyAfterMs - (performance.now() - startedAt);
    if (untilSteady > 0) {
      log(`own cost: waiting ${fmt(untilSteady / 1000, 0)} s more for the steady state`);
      await sleep(untilSteady);
    }
    const steady = await measure('steady', options.windows, options.windowSeconds);
    const rssMb = Object.fromEntries(
      running.map(({ variant, pid }) => {
        const bytes = processRssBytes(pid);
        return [variant.name, bytes === null ? null : bytes / 1024 / 1024];
      }),
    ) as OwnCostResult['rssMb'];
    await Promise.all(running.map(({ stop }) => stop()));
    const [profiledRun, profiledBaseline] = profiled;
    const [profile, baselineProfile] = await Promise.all([
      profiledRun === null ? null : profiledRun.finish(options.profileSeconds),
      profiledBaseline === null ? null : profiledBaseline.finish(options.profileSeconds),
    ]);
    return {
      ...steady,
      nodeVersion: process.version,
      early,
      rssMb,
      profile,
      baselineProfile,
    };
  }, parent);
}

interface ProfiledRun {
  /** Stops the process and summarises the last `seconds` before the stop. */
  finish(seconds: number): Promise<ProfileResult>;
}

/**
 * One recording process under `--cpu-prof` (written at its graceful exit); only the last seconds
 * before the stop count, so neither start-up nor the warm-up is mistaken for the steady cost.
 */
async function startProfiled(
  args: string[],
  entry: readonly string[],
  profileDir: string,
  cleanups: Cleanups,
): Promise<ProfiledRun> {
  await mkdir(profileDir, { recursive: true });
  const { run } = await startCliChild('aioscope profiled', args, cleanups, {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=500'],
    entry,
  });
  return {
    async finish(seconds) {
      const stopAt = performance.now();
      await stopCliChild(run);
      const shutdownMs = performance.now() - stopAt;
      // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main thread (1 is tsx's loader, if any).
      const file = (await readdir(profileDir)).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
      if (file === undefined) throw new Error('own cost: the profiled process wrote no .cpuprofile');
      const whole = JSON.parse(await readFile(path.join(profileDir, file), 'utf8')) as CpuProfile;
      // Counted back from the profile's end (the exit), so the shutdown (closing the store) falls
      // outside the window, however slowly the process stopped.
      const endMs = (whole.endTime - whole.startTime) / 1000 - shutdownMs - SHUTDOWN_MARGIN_MS;
      const steady = samplesAfter(whole, endMs - seconds * 1000, seconds * 1000);
      const summary = summarizeProfile(steady, sourceModuleOf());
      return { ...summary, seconds: summary.sampledMs / 1000, busyPercent: 100 * (1 - summary.idleShare) };
    },
  };
}

/**
 * moduleOf, with a bundle's functions named by the source file they were compiled from (through
 * the bundle's source map): a profile of build/start/cli.js alone would put all project code in one module.
 */
function sourceModuleOf(): (node: ProfileNode) => string {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (file: string): SourceMap | null => {
    let map = maps.get(file);
    if (map === undefined) {
      const mapFile = `${file}.map`;
      map = existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload) : null;
      maps.set(file, map);
    }
    return map;
  };
  return (node) => {
    const { url, lineNumber, columnNumber } = node.callFrame as ProfileNode['callFrame'] & { columnNumber?: number };
    if (!url.startsWith('file://') || !url.endsWith('.js') || url.includes('/node_modules/')) return moduleOf(node);
    const file = fileURLToPath(url);
    const source = mapOf(file)?.findEntry(lineNumber, columnNumber ?? 0);
    const original = source !== undefined && 'originalSource' in source ? source.originalSource : undefined;
    if (original === undefined) return moduleOf(node);
    // Sources are named relative to the map; a baseline build elsewhere names its own copy of the tree.
    const resolved = original.startsWith('file://')
      ? fileURLToPath(original)
      : path.resolve(path.dirname(file), original);
    return /(?:^|\/)((?:apps|packages)\/.*)$/.exec(resolved)?.[1] ?? moduleOf(node);
  };
}

/** What a variant's name (the result's key) measured. */
function variantKindOf(name: string): Variant['kind'] {
  if (name.startsWith('floor')) return 'floor';
  return name.startsWith('peer') ? 'peer' : 'aioscope';
}

/** Median of each thread group's share over the windows, largest first: "V8Worker 0.6 %, libuv-worker 0.4 %". */
function otherThreadsText(windows: readonly ThreadShares[]): string {
  const names = [...new Set(windows.flatMap((window) => Object.keys(window.others)))];
  return (
    names
      .map((name) => ({ name, percent: median(windows.map((window) => window.others[name] ?? 0)) }))
      .sort((a, b) => b.percent - a.percent)
      .map(({ name, percent }) => `${name} ${fmt(percent, 2)} %`)
      .join(', ') || 'none'
  );
}

/** `own-cost`: aioscope's own CPU for one watched server at the defaults (issue 24). */
export async function runOwnCost(bench: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { server } = await openScannedBenchCluster(cleanups);
    const { quick, roundsScale } = bench;
    const options: OwnCostOptions = {
      earlyWindows: 2,
      earlyWindowSeconds: quick ? 10 : 30,
      windows: quick ? 2 : Math.max(2, Math.round(3 * roundsScale)),
      windowSeconds: quick ? 10 : 60,
      // --quick checks the bench works, not the steady figure: a minute, not five.
      steadyAfterMs: quick ? 60_000 : STEADY_AFTER_MS,
      profileSeconds: quick ? 10 : 60,
      otherNode: bench.ownCostNode,
      baseline: bench.ownCostBaseline,
    };
    const result = await measureOwnCost(server.connectionConfig, options, cleanups);
    writeResult('own-cost', result);
    const load = result.loadAverage.map((entry) => entry[0]).filter((value) => value !== undefined);
    const variants = Object.keys(result.cpuPercent);
    const earlyText = (name: string): string => {
      const values = result.early.cpuPercent[name] ?? [];
      return `first minutes (${result.early.windows} × ${result.early.windowSeconds} s from ${fmt(result.early.fromSeconds, 0)} s): ${fmt(median(values), 2)} % (${fmt(min(values), 2)}–${fmt(max(values), 2)})`;
    };
    const rows = variants.map((name): TableRow => {
      const values = result.cpuPercent[name] ?? [];
      const windows = result.threads[name] ?? [];
      const rss = result.rssMb[name];
      // The goal is the command line's as it is: the baseline (another build) is only compared with.
      const recording = name.startsWith('recording') && !name.includes('baseline');
      const node = name.includes('node v') ? '' : `, node ${result.nodeVersion}`;
      const kind = variantKindOf(name);
      const what = {
        floor: `${name} (roundTripFloor.mjs: node-postgres, the prepared fast tick, the answer dropped)`,
        peer: `${name} (its defaults otherwise, in a 200 × 50 pseudo-terminal)`,
        aioscope: `\`--db URL\` at the defaults (20 Hz, ${name}${node})`,
      }[kind];
      return {
        measurement: {
          floor: "aioscope's own CPU, one server: floor (diagnostic)",
          peer: "aioscope's own CPU, one server: the nearest peer (comparison)",
          aioscope: "aioscope's own CPU, one server",
        }[kind],
        condition: `${what}, cold scans, no viewer, steady: ${result.windows} × ${result.windowSeconds} s from ${fmt(result.fromSeconds / 60, 1)} min after the start, all ${variants.length} variants at once`,
        result:
          `${fmt(median(values), 2)} % of a core (${fmt(min(values), 2)}–${fmt(max(values), 2)}): main thread ${fmt(median(windows.map((w) => w.main)), 2)} %, ` +
          `other threads ${otherThreadsText(windows)}; ${earlyText(name)}; RSS ${fmt(rss ?? Number.NaN)} MB; load ${fmt(min(load), 1)}–${fmt(max(load), 1)}`,
        target: recording ? `≤ ${OWN_COST_GOAL_PERCENT} %` : '–',
        verdict: recording ? verdict(median(values) <= OWN_COST_GOAL_PERCENT) : 'n/a',
      };
    });
    const profiles: [string, ProfileResult | null][] = [
      ['recording process', result.profile],
      [`baseline ${bench.ownCostBaseline ?? ''}`, result.baselineProfile],
    ];
    for (const [what, profile] of profiles) {
      if (profile === null) continue;
      rows.push({
        measurement: "aioscope's own CPU, one server: profile (diagnostic)",
        condition: `${what} under --cpu-prof, started with the measured ones, its last ${fmt(profile.seconds, 0)} s`,
        // Shares are of the sampled wall time: a sample taken while the thread waited for a core
        // counts as busy, so on a loaded machine they add up to more than /proc's figure.
        result:
          `main thread busy ${fmt(profile.busyPercent, 2)} % of the time sampled; by module (% of a core): ${briefRanking(profile.selfByModule, 6, 2)}; ` +
          `project code inclusive: ${briefRanking(profile.inclusiveAppFunctions, 6, 2)}`,
        target: '–',
        verdict: 'n/a',
      });
    }
    return rows;
  }, parent);
}
