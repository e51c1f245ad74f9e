/**
 * `npm run bench`: aioscope's performance measurements. Timings live here, never in tests.
 *
 *   npm run bench                        # all default measurements, ~30 minutes (own-cost waits 5 for the steady state)
 *   npm run bench -- --quick             # smoke run, ~2 minutes
 *   npm run bench -- --only fanout       # one (or a comma list) of: observer, sampler, latency, fanout, browser, soak
 *   npm run bench -- --soak 30           # the soak alone, 30 minutes at 100 Hz (add --only to combine)
 *   npm run bench -- --browser-minutes 10  # keep the dashboard open 10 minutes in the browser-cost measurement
 *   npm run bench -- --rounds 2          # twice the interleaved rounds of the default
 *   npm run bench -- --only profile      # the diagnostic CPU profile of the dashboard alone (unminified build)
 *   npm run bench -- --only server-profile  # the diagnostic CPU profile of the sampler at 100 Hz alone
 *   npm run bench -- --only own-cost     # the command line's own CPU for one server at the defaults, steady from minute 5, with a profile (~9 minutes)
 *   npm run bench -- --only own-cost --own-cost-node PATH  # and the same on another node binary (Node 24) at once
 *   npm run bench -- --only record       # what history recording costs: CPU, jitter, MB per hour
 *   npm run bench -- --only metrics      # GET /metrics scrape time: one live target, 20 replayed ones
 *   npm run bench -- --only history-browser  # past ranges, a recording file and replay drawn in Chromium
 *   npm run bench -- --only adapter      # the live adapter's engine, Redis streams vs PostgreSQL LISTEN/NOTIFY, at the team load (A/B/A)
 *   npm run bench -- --only team         # 3 replicas, shared store, Redis, nginx: 60 targets, 300 viewers, 5 kills (--quick: 12, 30, 2)
 *   npm run bench -- --only team --team-node PATH  # the same with every aioscope process on that node binary (the image's Node 24)
 *   npm run bench -- --only page-ab --baseline-web DIR  # an earlier build of the page against this one, interleaved
 *   npm run bench -- --only race-replay  # the race replayed at 1× against the live dashboard, one page, interleaved
 *
 * stdout is a Markdown table (one row per measurement and condition); progress goes to stderr.
 * Each measurement writes bench/results/<name>.json; the run writes bench/results/summary.json.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../apps/server/src/config/config.ts';
import { startBenchAioscope, type BenchAioscope } from './lib/aioscope.ts';
import { runBrowserCost } from './lib/browserCost.ts';
import { nodeVersionOf } from './lib/nodeBinary.ts';
import {
  BenchUsageError,
  Cleanups,
  TABLE_HEADER,
  log,
  tableLine,
  writeResult,
  type BenchOptions,
  type TableRow,
} from './lib/common.ts';
import { checkWebBuild, snapshotBaselineWeb, useWebBuild } from './lib/dashboard.ts';
import { runFanout } from './lib/fanout.ts';
import { runFleet } from './lib/fleet.ts';
import { runTeam } from './lib/team.ts';
import { runAdapterChoice } from './lib/adapterChoice.ts';
import { runHistoryBrowser } from './lib/historyBrowser.ts';
import { runLatency } from './lib/latency.ts';
import { runMetricsScrape } from './lib/metricsScrape.ts';
import { acquireBenchLock } from './lib/lock.ts';
import { runObserver } from './lib/observer.ts';
import { runOwnCost } from './lib/ownCost.ts';
import { pageAbMinutes, runPageAb } from './lib/pageAb.ts';
import { runProfile } from './lib/profile.ts';
import { raceReplayMinutes, runRaceReplay } from './lib/raceReplay.ts';
import { runRecord } from './lib/record.ts';
import { runRecordingOpen } from './lib/recordingOpen.ts';
import { machineInfo } from './lib/proc.ts';
import { runSampler } from './lib/sampler.ts';
import { runServerProfile } from './lib/serverProfile.ts';
import { runSoak } from './lib/soak.ts';

const MEASUREMENTS = [
  'observer',
  'sampler',
  'server-profile',
  'own-cost',
  'latency',
  'fanout',
  'browser',
  'profile',
  'metrics',
  'soak',
  'recording-open',
  'record',
  'history-browser',
  'fleet',
  'page-ab',
  'race-replay',
  'team',
  'adapter',
] as const;
type MeasurementName = (typeof MEASUREMENTS)[number];
const DEFAULT_SET: MeasurementName[] = [
  'observer',
  'sampler',
  'server-profile',
  'own-cost',
  'latency',
  'fanout',
  'browser',
  'profile',
  'metrics',
  'recording-open',
  'record',
  'history-browser',
  'race-replay',
];
/** The default rate of `npm start`, at which latency, fan-out and browser cost are measured. */
const DASHBOARD_RATE_HZ = 20;

function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      soak: { type: 'string' },
      'browser-minutes': { type: 'string' },
      rounds: { type: 'string' },
      'web-dist': { type: 'string' },
      'baseline-web': { type: 'string' },
      'own-cost-node': { type: 'string' },
      'own-cost-baseline': { type: 'string' },
      'team-node': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help === true) {
    process.stdout.write(
      'usage: npm run bench -- [--quick] [--only NAME[,NAME]] [--soak MINUTES] [--browser-minutes N] [--rounds SCALE] [--web-dist DIR] [--baseline-web DIR] [--own-cost-node PATH] [--own-cost-baseline CLI] [--team-node PATH]\n' +
        '  --web-dist DIR: the pages load this build instead of apps/web/dist (before/after comparisons)\n' +
        '  --baseline-web DIR: the earlier build page-ab compares the page with, window by window in one run\n' +
        '  --own-cost-node PATH: own-cost also runs the recording command line on this node binary, beside this one\n' +
        "  --own-cost-baseline CLI: and another build of it (a cli.js, e.g. another commit's build/start/cli.js, or a cli.ts through tsx)\n" +
        "  --team-node PATH: team runs its replicas and its one process on this node binary instead of this one (the container image's is Node 24)\n" +
        `measurements: ${MEASUREMENTS.join(', ')} (soak only when named; --soak M runs the soak)\n`,
    );
    process.exit(0);
  }
  const only = (values.only ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  for (const name of only) {
    if (!(MEASUREMENTS as readonly string[]).includes(name)) {
      throw new BenchUsageError(`--only ${name}: not one of ${MEASUREMENTS.join(', ')}`);
    }
  }
  const number = (text: string | undefined, flag: string, fallback: number | null): number | null => {
    if (text === undefined) return fallback;
    const parsed = Number(text);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new BenchUsageError(`${flag} must be a positive number`);
    return parsed;
  };
  if (values['web-dist'] !== undefined) {
    try {
      useWebBuild(path.resolve(values['web-dist']));
    } catch (error) {
      throw new BenchUsageError((error as Error).message);
    }
  }
  const baselineWeb = values['baseline-web'] === undefined ? null : path.resolve(values['baseline-web']);
  if (baselineWeb !== null) {
    try {
      checkWebBuild(baselineWeb, '--baseline-web');
    } catch (error) {
      throw new BenchUsageError((error as Error).message);
    }
  }
  if (only.includes('page-ab') && baselineWeb === null) {
    throw new BenchUsageError('--only page-ab needs --baseline-web DIR: the build of the page to compare with');
  }
  const quick = values.quick === true;
  const soakMinutes = number(values.soak, '--soak', null);
  return {
    quick,
    only: only.length > 0 ? new Set(only) : soakMinutes !== null ? new Set(['soak']) : null,
    soakMinutes,
    browserMinutes: number(values['browser-minutes'], '--browser-minutes', quick ? 0.5 : 2) ?? 2,
    roundsScale: number(values.rounds, '--rounds', 1) ?? 1,
    baselineWeb,
    ownCostNode: values['own-cost-node'] === undefined ? null : path.resolve(values['own-cost-node']),
    ownCostBaseline: values['own-cost-baseline'] === undefined ? null : path.resolve(values['own-cost-baseline']),
    teamNode: values['team-node'] === undefined ? null : nodeBinary(path.resolve(values['team-node']), '--team-node'),
  };
}

/** A node binary given by a flag, checked by running it: its path, or a usage error naming the flag. */
function nodeBinary(file: string, flag: string): string {
  try {
    nodeVersionOf(file);
  } catch (error) {
    throw new BenchUsageError(`${flag} ${file}: not a node binary (${(error as Error).message.split('\n')[0] ?? ''})`);
  }
  return file;
}

/** Which code was measured: the commit, and how many files differed from it (others edit concurrently). */
function sourceState(): { commit: string | null; changedFiles: number | null } {
  const git = (args: string[]): string | null => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 10_000 }).trim();
    } catch {
      return null;
    }
  };
  const status = git(['status', '--porcelain', '--', '.', ':!bench']);
  return {
    commit: git(['rev-parse', 'HEAD']),
    changedFiles: status === null ? null : status.split('\n').filter(Boolean).length,
  };
}

function selected(options: BenchOptions): MeasurementName[] {
  return MEASUREMENTS.filter((name) => (options.only === null ? DEFAULT_SET.includes(name) : options.only.has(name)));
}

/** A bound on the whole run, so a hang anywhere still ends the process (with cleanups). */
function watchdogMinutes(options: BenchOptions, names: MeasurementName[]): number {
  const base = options.quick ? 10 : 30;
  return (
    base +
    (names.includes('soak') ? (options.soakMinutes ?? 5) : 0) +
    (names.includes('page-ab') ? pageAbMinutes(options) : 0) +
    (names.includes('race-replay') ? raceReplayMinutes(options) : 0) +
    options.browserMinutes * 2
  );
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const names = selected(options);
  const releaseLock = acquireBenchLock();
  const machine = machineInfo();
  const source = sourceState();
  const cleanups = new Cleanups();
  const rows: TableRow[] = [];
  const failures: string[] = [];
  const startedAt = new Date();

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping, cleaning up ...`);
    void cleanups.runAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const watchdog = setTimeout(
    () => {
      log(`watchdog: the run exceeded ${watchdogMinutes(options, names)} minutes; cleaning up and exiting`);
      void cleanups.runAll().finally(() => process.exit(3));
    },
    watchdogMinutes(options, names) * 60_000,
  );
  watchdog.unref();

  log(
    `machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memory} RAM, node ${machine.node}, ${machine.kernel}, ` +
      `load ${machine.loadAverage.join(' ')}`,
  );
  log(`running: ${names.join(', ')}${options.quick ? ' (quick)' : ''}`);
  log(`source: ${source.commit ?? 'unknown commit'}, ${source.changedFiles ?? '?'} files changed outside bench/`);
  process.stdout.write(`${TABLE_HEADER}\n`);
  const print = (produced: TableRow[]): void => {
    for (const row of produced) {
      rows.push(row);
      process.stdout.write(`${tableLine(row)}\n`);
    }
  };

  // latency, fan-out and browser share one aioscope at the dashboard's default rate.
  let shared: BenchAioscope | null = null;
  const sharedApp = async (): Promise<BenchAioscope> => {
    shared ??= await startBenchAioscope(DASHBOARD_RATE_HZ, cleanups);
    return shared;
  };
  const closeShared = async (): Promise<void> => {
    const app = shared;
    shared = null;
    await app?.close();
  };

  try {
    for (const name of names) {
      const started = performance.now();
      log(`── ${name} ──`);
      try {
        switch (name) {
          case 'observer':
            print(await runObserver(options, cleanups));
            break;
          case 'sampler':
            print(await runSampler(options, cleanups));
            break;
          case 'server-profile':
            print(await runServerProfile(options, cleanups));
            break;
          case 'own-cost':
            print(await runOwnCost(options, cleanups));
            break;
          case 'latency':
            print(await runLatency(options, await sharedApp(), cleanups));
            break;
          case 'fanout':
            print(await runFanout(options, await sharedApp(), cleanups));
            break;
          case 'browser':
            print(await runBrowserCost(options, await sharedApp(), cleanups));
            break;
          case 'profile':
            print(await runProfile(options, await sharedApp(), cleanups));
            break;
          case 'metrics':
            print(await runMetricsScrape(options, await sharedApp()));
            break;
          case 'recording-open':
            print(await runRecordingOpen(options, cleanups));
            break;
          case 'record':
            print(await runRecord(options, cleanups));
            break;
          case 'history-browser':
            print(await runHistoryBrowser(options, await sharedApp(), cleanups));
            break;
          case 'fleet':
            print(await runFleet(options, cleanups));
            break;
          case 'team':
            print(await runTeam(options, cleanups));
            break;
          case 'adapter':
            print(await runAdapterChoice(options, cleanups));
            break;
          case 'race-replay':
            print(await runRaceReplay(options, await sharedApp(), cleanups));
            break;
          case 'page-ab': {
            if (options.baselineWeb === null) throw new BenchUsageError('page-ab needs --baseline-web DIR');
            const baseline = await snapshotBaselineWeb(options.baselineWeb);
            print(await runPageAb(options, await sharedApp(), baseline, cleanups));
            break;
          }
          case 'soak':
            await closeShared(); // the soak's own aioscope at 100 Hz uses the same cluster
            print(await runSoak(options, cleanups));
            break;
        }
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        failures.push(`${name}: ${message}`);
        log(`${name} FAILED: ${message}`);
        print([
          {
            measurement: name,
            condition: '–',
            result: `failed: ${message.split('\n')[0] ?? ''}`,
            target: '–',
            verdict: 'error',
          },
        ]);
        await closeShared(); // a failure may have left the shared server in an unknown state
      }
      log(`${name} took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await closeShared();
    await cleanups.runAll();
    clearTimeout(watchdog);
    releaseLock();
  }

  const finishedAt = new Date();
  const file = writeResult('summary', {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    minutes: (finishedAt.getTime() - startedAt.getTime()) / 60_000,
    options: { ...options, only: options.only === null ? null : [...options.only] },
    machine: { ...machine, loadAverageAtEnd: machineInfo().loadAverage },
    source,
    rows,
    failures,
  });
  log(`done in ${((finishedAt.getTime() - startedAt.getTime()) / 60_000).toFixed(1)} min; results in ${file}`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof BenchUsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true) {
      log((error as Error).message);
      process.exit(2);
    }
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
