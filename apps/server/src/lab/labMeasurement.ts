import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import {
  LAB_BACKEND_READS_SQL,
  LAB_EVICT_RELATION_SQL,
  LAB_FORCE_FLUSH_SQL,
  LAB_RUN_SESSION_SETUP_SQL,
  LAB_SET_SESSION_SETTING_SQL,
  LAB_TRACK_IO_TIMING_SQL,
  explainIoReport,
  labExplainSql,
  labSessionSettingParams,
  parseExplainJson,
  type PlannedRun,
} from '@aioscope/core';
import type { CacheState, LabRun } from '@aioscope/spec';
import { makeDemoTableCold, type DemoTableInfo } from '../demo/demoTable.ts';
import { osCacheResidency } from '../demo/osCache.ts';

/** How long to wait for a run's per-backend counters to be flushed after the forced flush. */
const FLUSH_WAIT_MS = 3_000;
const FLUSH_POLL_MS = 50;

export interface MeasureContext {
  /** Short statements: eviction, the run backend's counters. */
  control: pg.Client;
  /** A fresh session for this run only, so its backend's counters are the run's alone. */
  run: pg.Client;
  table: DemoTableInfo;
  cacheState: CacheState;
  /** The lab can drop the table from the OS page cache (embedded server: its files are on this machine). */
  osEviction: boolean;
  signal: AbortSignal;
  /** Told just before and just after the scan itself (a race captures the run in between). */
  observer?: ScanObserver;
}

/** The run a scan belongs to, as an observer of the lab's scans sees it. */
export interface ObservedScan {
  experimentId: string;
  variant: string;
  round: number;
  /** The run session's backend: the only process whose reads are the scan's. */
  pid: number;
  table: DemoTableInfo;
}

/**
 * Watches the lab's scans (the race's 100 Hz capture). scanStarting is awaited before the EXPLAIN
 * is sent, so the capture is running when the first read is issued; scanEnded is awaited after it
 * returned or failed. An observer that throws costs the run nothing (errors are its own to report).
 */
export interface ScanObserver {
  scanStarting(scan: ObservedScan): Promise<void>;
  scanEnded(scan: ObservedScan): Promise<void>;
}

/**
 * One measured run: settings of the variant on the run session, the cache prepared as asked, the
 * scan's EXPLAIN (ANALYZE), then the run backend's own pg_stat_io counters (Δreads, Δread_bytes).
 * On PostgreSQL 19 the EXPLAIN also carries each scan node's I/O figures (IO), kept with the run.
 */
export async function measureRun(context: MeasureContext, planned: PlannedRun, experimentId = ''): Promise<LabRun> {
  const { control, run, table, signal } = context;
  const setup = (
    await run.query<{
      pid: number;
      version_num: number;
      block_size: number;
      io_method: string | null;
      io_direct: string | null;
    }>(LAB_RUN_SESSION_SETUP_SQL)
  ).rows[0];
  if (setup === undefined) throw new Error('the run session answered nothing');
  await run.query(LAB_TRACK_IO_TIMING_SQL).catch(() => undefined); // needs superuser or a grant
  for (const params of labSessionSettingParams(planned.variant.session)) {
    await run.query(LAB_SET_SESSION_SETTING_SQL, params);
  }

  const osResidencyBefore = await prepareCache(context);
  signal.throwIfAborted();
  const before = await backendReads(control, setup.pid);
  const observed: ObservedScan = {
    experimentId,
    variant: planned.variant.name,
    round: planned.round,
    pid: setup.pid,
    table,
  };
  await context.observer?.scanStarting(observed).catch(() => undefined);
  const startedAt = Date.now();
  let explain: pg.QueryResult<{ 'QUERY PLAN': unknown }>;
  try {
    explain = await run.query<{ 'QUERY PLAN': unknown }>(labExplainSql(table.name, setup.version_num));
  } finally {
    await context.observer?.scanEnded(observed).catch(() => undefined);
  }
  const plan = explain.rows[0]?.['QUERY PLAN'];
  const figures = parseExplainJson(plan);
  await run.query(LAB_FORCE_FLUSH_SQL);
  let after = await backendReads(control, setup.pid);
  const deadline = Date.now() + FLUSH_WAIT_MS;
  while (
    after !== null &&
    before !== null &&
    after.reads === before.reads &&
    figures.sharedReadBlocks > 0 &&
    Date.now() < deadline
  ) {
    await sleep(FLUSH_POLL_MS, undefined, { signal });
    after = await backendReads(control, setup.pid);
  }
  const reads = after !== null && before !== null ? after.reads - before.reads : null;
  const readBytes = after !== null && before !== null ? after.readBytes - before.readBytes : null;
  return {
    variant: planned.variant.name,
    round: planned.round,
    startedAt,
    ioMethod: setup.io_method,
    cacheState: context.cacheState,
    osResidencyBefore,
    ioDirect: setup.io_direct,
    executionMs: figures.executionMs,
    sharedReadBlocks: figures.sharedReadBlocks,
    sharedHitBlocks: figures.sharedHitBlocks,
    ioReadTimeMs: figures.ioReadTimeMs,
    reads,
    readBytes,
    bytesPerRead: reads !== null && readBytes !== null && reads > 0 ? readBytes / reads : null,
    explainIo: explainIoReport(plan, setup.version_num, setup.block_size),
  };
}

/** Evicts what the cache state asks for; returns the OS page-cache residency just before the scan, when known. */
async function prepareCache(context: MeasureContext): Promise<number | null> {
  const { control, table } = context;
  const evictSharedBuffers = (): Promise<unknown> =>
    control.query(LAB_EVICT_RELATION_SQL, [table.name]).catch(() => undefined);
  if (context.cacheState === 'cold') {
    if (context.osEviction) return makeDemoTableCold(control, table);
    await evictSharedBuffers();
    return null;
  }
  if (context.cacheState === 'shared-buffers-cold') await evictSharedBuffers();
  return context.osEviction && table.files.length > 0 ? osCacheResidency(table.files) : null;
}

/** A backend's relation reads so far (PostgreSQL 18+); null where pg_stat_get_backend_io does not exist. */
async function backendReads(client: pg.Client, pid: number): Promise<{ reads: number; readBytes: number } | null> {
  try {
    const row = (await client.query<{ reads: number | null; read_bytes: number | null }>(LAB_BACKEND_READS_SQL, [pid]))
      .rows[0];
    return { reads: Number(row?.reads ?? 0), readBytes: Number(row?.read_bytes ?? 0) };
  } catch {
    return null;
  }
}
