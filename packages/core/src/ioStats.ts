import type { IoStatDelta } from '@aioscope/spec';

/** One pg_stat_io row as STAT_IO_SQL_* selects it. */
export interface StatIoQueryRow {
  t: number;
  backend_type: string;
  object: string;
  context: string;
  reads: number | null;
  read_bytes: number | null;
  read_time: number | null;
  stats_reset: number | null;
}

/** Cumulative read counters of relations at one instant of the server's clock. */
export interface IoCounters {
  t: number;
  statsReset: number | null;
  reads: number;
  readBytes: number;
  readTimeMs: number;
  byBackendType: Record<string, { reads: number; readBytes: number }>;
  /** By pg_stat_io context: `bulkread` is the ring large sequential scans read through. */
  byContext: Record<string, { reads: number; readBytes: number }>;
  /** By pg_stat_io row (statIoGroupKey), with the row's read time. */
  byGroup: Record<string, RowReads>;
}

/** One pg_stat_io row's reads: read_time (ms, needs track_io_timing) kept apart per row too. */
export interface RowReads {
  reads: number;
  readBytes: number;
  readTimeMs: number;
}

/** What a pg_stat_io row is counted under: its backend_type, object and context. */
export interface StatIoGroup {
  backendType: string;
  object: string;
  context: string;
}

/** None of PostgreSQL's backend types, objects or contexts contains a slash. */
const GROUP_SEPARATOR = '/';

export function statIoGroupKey(group: StatIoGroup): string {
  return [group.backendType, group.object, group.context].join(GROUP_SEPARATOR);
}

/** The inverse of statIoGroupKey; null for a key it did not make. */
export function parseStatIoGroupKey(key: string): StatIoGroup | null {
  const [backendType, object, context, extra] = key.split(GROUP_SEPARATOR);
  if (backendType === undefined || object === undefined || context === undefined || extra !== undefined) return null;
  return { backendType, object, context };
}

/**
 * Sums pg_stat_io rows into read counters. Only `relation` and `temp relation` count: WAL reads
 * (PostgreSQL 18's `wal` object) are not the data-file reads that AIO combines.
 */
export function parseStatIoRows(rows: readonly StatIoQueryRow[]): IoCounters | null {
  const first = rows[0];
  if (first === undefined) return null;
  const counters: IoCounters = {
    t: Number(first.t),
    statsReset: null,
    reads: 0,
    readBytes: 0,
    readTimeMs: 0,
    byBackendType: {},
    byContext: {},
    byGroup: {},
  };
  for (const row of rows) {
    if (row.stats_reset !== null && (counters.statsReset === null || row.stats_reset > counters.statsReset)) {
      counters.statsReset = Number(row.stats_reset);
    }
    if (row.object === 'wal') continue;
    const reads = Number(row.reads ?? 0);
    const readBytes = Number(row.read_bytes ?? 0);
    counters.reads += reads;
    counters.readBytes += readBytes;
    const readTimeMs = Number(row.read_time ?? 0);
    counters.readTimeMs += readTimeMs;
    const perType = (counters.byBackendType[row.backend_type] ??= { reads: 0, readBytes: 0 });
    perType.reads += reads;
    perType.readBytes += readBytes;
    const perContext = (counters.byContext[row.context] ??= { reads: 0, readBytes: 0 });
    perContext.reads += reads;
    perContext.readBytes += readBytes;
    const key = statIoGroupKey({ backendType: row.backend_type, object: row.object, context: row.context });
    const perGroup = (counters.byGroup[key] ??= { reads: 0, readBytes: 0, readTimeMs: 0 });
    perGroup.reads += reads;
    perGroup.readBytes += readBytes;
    perGroup.readTimeMs += readTimeMs;
  }
  return counters;
}

/**
 * The change between two readings. A changed stats_reset, a counter that went backwards (server
 * restart, pg_stat_reset_shared('io')) or a non-advancing clock is a reset: the interval carries no
 * numbers rather than a negative or spiking rate.
 */
export function diffIoCounters(previous: IoCounters, current: IoCounters): IoStatDelta {
  const intervalSeconds = (current.t - previous.t) / 1000;
  const wentBackwards =
    current.reads < previous.reads ||
    current.readBytes < previous.readBytes ||
    current.readTimeMs < previous.readTimeMs;
  const reset = previous.statsReset !== current.statsReset || wentBackwards || intervalSeconds <= 0;
  if (reset) {
    return {
      t: current.t,
      intervalSeconds: Math.max(0, intervalSeconds),
      reset: true,
      reads: 0,
      readBytes: 0,
      readTimeMs: 0,
      bytesPerRead: null,
      byBackendType: {},
      byContext: {},
      byGroup: {},
    };
  }
  const reads = current.reads - previous.reads;
  const readBytes = current.readBytes - previous.readBytes;
  const byBackendType = diffGroups(previous.byBackendType, current.byBackendType);
  const byContext = diffGroups(previous.byContext, current.byContext);
  return {
    t: current.t,
    intervalSeconds,
    reset: false,
    reads,
    readBytes,
    readTimeMs: current.readTimeMs - previous.readTimeMs,
    bytesPerRead: reads > 0 ? readBytes / reads : null,
    byBackendType,
    byContext,
    byGroup: diffRows(previous.byGroup, current.byGroup),
  };
}

type ReadGroups = Record<string, { reads: number; readBytes: number }>;

/** Per-group deltas of two readings, groups that did not move left out. */
function diffGroups(previous: ReadGroups, current: ReadGroups): ReadGroups {
  const out: ReadGroups = {};
  for (const [name, now] of Object.entries(current)) {
    const before = previous[name] ?? { reads: 0, readBytes: 0 };
    const reads = now.reads - before.reads;
    const readBytes = now.readBytes - before.readBytes;
    if (reads > 0 || readBytes > 0) out[name] = { reads, readBytes };
  }
  return out;
}

/** Per-row deltas with their read time; rows that did not move left out. */
function diffRows(previous: Record<string, RowReads>, current: Record<string, RowReads>): Record<string, RowReads> {
  const out: Record<string, RowReads> = {};
  for (const [name, now] of Object.entries(current)) {
    const before = previous[name] ?? { reads: 0, readBytes: 0, readTimeMs: 0 };
    const row = {
      reads: now.reads - before.reads,
      readBytes: now.readBytes - before.readBytes,
      readTimeMs: now.readTimeMs - before.readTimeMs,
    };
    if (row.reads > 0 || row.readBytes > 0 || row.readTimeMs > 0) out[name] = row;
  }
  return out;
}

/** pg_stat_io's context for the ring large sequential scans read through. */
export const BULK_READ_CONTEXT = 'bulkread';
/** Bytes per read is weighted by reads over this much server time. */
export const BYTES_PER_READ_WINDOW_SECONDS = 10;

export interface BytesPerReadPoint {
  t: number;
  /** This interval alone (the per-second truth); null when no read was counted in it. */
  interval: number | null;
  /** Reads counted in this interval. */
  reads: number;
  /** All reads of the trailing window, weighted by reads: a tiny statement cannot pull it to 8 kB. */
  weighted: number | null;
  /** Bulk reads (context bulkread: large sequential scans) of the trailing window. */
  bulk: number | null;
  /** Every other context (normal, vacuum, …) of the trailing window. */
  other: number | null;
}

/**
 * Exact bytes per read from pg_stat_io deltas, per interval and weighted over a trailing window.
 * A reset interval carries nothing and the window does not reach across it.
 */
export function bytesPerReadSeries(
  deltas: readonly IoStatDelta[],
  windowSeconds = BYTES_PER_READ_WINDOW_SECONDS,
): BytesPerReadPoint[] {
  const points: BytesPerReadPoint[] = [];
  let start = 0;
  for (let end = 0; end < deltas.length; end++) {
    const current = deltas[end] as IoStatDelta;
    if (current.reset) start = end + 1;
    while (start < end && (deltas[start] as IoStatDelta).t <= current.t - windowSeconds * 1000) start++;
    const all = { reads: 0, readBytes: 0 };
    const bulk = { reads: 0, readBytes: 0 };
    for (let i = start; i <= end; i++) {
      const delta = deltas[i] as IoStatDelta;
      if (delta.reset) continue;
      all.reads += delta.reads;
      all.readBytes += delta.readBytes;
      const bulkReads = delta.byContext[BULK_READ_CONTEXT];
      if (bulkReads !== undefined) {
        bulk.reads += bulkReads.reads;
        bulk.readBytes += bulkReads.readBytes;
      }
    }
    const ratio = (reads: number, bytes: number): number | null => (reads > 0 ? bytes / reads : null);
    points.push({
      t: current.t,
      interval: current.reset ? null : current.bytesPerRead,
      reads: current.reads,
      weighted: ratio(all.reads, all.readBytes),
      bulk: ratio(bulk.reads, bulk.readBytes),
      other: ratio(all.reads - bulk.reads, all.readBytes - bulk.readBytes),
    });
  }
  return points;
}
