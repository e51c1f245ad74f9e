import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { REPO_ROOT } from '../../apps/server/src/config/config.ts';

export const BENCH_ROOT = path.join(REPO_ROOT, 'bench');
export const RESULTS_DIR = path.join(BENCH_ROOT, 'results');
/** Benchmark clusters live apart from the user's `.aioscope/pg18` and the tests' clusters. */
export const BENCH_DATA_DIR = path.join(REPO_ROOT, '.aioscope', 'bench');
/** The demo table: 8× shared_buffers (64 MB), so every scan reads from storage. */
export const BENCH_TABLE_MB = 512;

export interface BenchOptions {
  quick: boolean;
  /** Measurement names to run; null = all of the default set. */
  only: Set<string> | null;
  /** Soak minutes; null = no soak. */
  soakMinutes: number | null;
  /** Minutes the browser-cost page stays open. */
  browserMinutes: number;
  /** Scales the number of interleaved rounds (1 = default). */
  roundsScale: number;
  /** The earlier web build page-ab compares the page with (--baseline-web); null = none given. */
  baselineWeb: string | null;
  /** Another node binary own-cost runs the recording command line on, beside this one (--own-cost-node). */
  ownCostNode: string | null;
  /** Another build of the command line own-cost runs beside this one (--own-cost-baseline): a cli.js, or a cli.ts run through tsx. */
  ownCostBaseline: string | null;
  /** The node binary team runs every aioscope process on (--team-node); null = this one. */
  teamNode: string | null;
}

/** Rounds of alternating windows (one per condition), and each window's length. */
export interface InterleavedPlan {
  rounds: number;
  windowSeconds: number;
}

/** A quick run's plan, or the full one with its rounds scaled by --rounds (at least 2). */
export function interleavedPlan(options: BenchOptions, quick: InterleavedPlan, full: InterleavedPlan): InterleavedPlan {
  if (options.quick) return quick;
  return { rounds: Math.max(2, Math.round(full.rounds * options.roundsScale)), windowSeconds: full.windowSeconds };
}

/**
 * An upper bound on an interleaved measurement's minutes, for the watchdog: two windows a round,
 * each with `overheadSeconds` of loading or settling, after `setupMinutes`.
 */
export function interleavedMinutes(plan: InterleavedPlan, overheadSeconds: number, setupMinutes = 0): number {
  return Math.ceil(setupMinutes + (plan.rounds * 2 * (plan.windowSeconds + overheadSeconds)) / 60) + 2;
}

/** A problem the user fixes (bad flag, another run holds the lock): one line, exit code 2. */
export class BenchUsageError extends Error {}

export const sleep = (ms: number): Promise<void> => delay(ms);

/** Progress goes to stderr, so stdout carries only the Markdown table. */
export function log(message: string): void {
  const stamp = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[bench ${stamp}] ${message}\n`);
}

export interface TableRow {
  measurement: string;
  condition: string;
  result: string;
  target: string;
  /** 'met' | 'MISSED' | 'n/a' */
  verdict: string;
}

export const TABLE_HEADER =
  '| measurement | condition | result (median, min–max over rounds) | target | verdict |\n|---|---|---|---|---|';

export function tableLine(row: TableRow): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return `| ${cell(row.measurement)} | ${cell(row.condition)} | ${cell(row.result)} | ${cell(row.target)} | ${cell(row.verdict)} |`;
}

export function verdict(ok: boolean | null): string {
  return ok === null ? 'n/a' : ok ? 'met' : 'MISSED';
}

export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Rejects after `ms` with a message naming what hung: no wait in the harness is unbounded. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Round r visits the conditions rotated by r, so no condition is always first or last. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/**
 * Cleanups registered while a measurement runs, run in reverse order on success, error or signal.
 * A cleanup that hangs is abandoned after a bound so the process always ends.
 */
export class Cleanups {
  private readonly stack: { name: string; run: () => Promise<void> | void }[] = [];

  add(name: string, run: () => Promise<void> | void): () => void {
    const entry = { name, run };
    this.stack.push(entry);
    return () => {
      const index = this.stack.indexOf(entry);
      if (index >= 0) this.stack.splice(index, 1);
    };
  }

  async runAll(): Promise<void> {
    for (const entry of this.stack.splice(0).reverse()) {
      try {
        await withTimeout(Promise.resolve(entry.run()), 30_000, `cleanup ${entry.name}`);
      } catch (error) {
        log(`cleanup ${entry.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

/** Runs `body` with its own cleanups, always running them, even when body throws. */
export async function using<T>(body: (cleanups: Cleanups) => Promise<T>, parent: Cleanups): Promise<T> {
  const cleanups = new Cleanups();
  const detach = parent.add('measurement', () => cleanups.runAll());
  try {
    return await body(cleanups);
  } finally {
    detach();
    await cleanups.runAll();
  }
}
