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
    counters.readTimeMs += Number(row.read_time ?? 0);
    const perType = (counters.byBackendType[row.backend_type] ??= { reads: 0, readBytes: 0 });
    perType.reads += reads;
    perType.readBytes += readBytes;
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
    };
  }
  const reads = current.reads - previous.reads;
  const readBytes = current.readBytes - previous.readBytes;
  const byBackendType: IoStatDelta['byBackendType'] = {};
  for (const [backendType, now] of Object.entries(current.byBackendType)) {
    const before = previous.byBackendType[backendType] ?? { reads: 0, readBytes: 0 };
    const deltaReads = now.reads - before.reads;
    const deltaBytes = now.readBytes - before.readBytes;
    if (deltaReads > 0 || deltaBytes > 0) {
      byBackendType[backendType] = { reads: deltaReads, readBytes: deltaBytes };
    }
  }
  return {
    t: current.t,
    intervalSeconds,
    reset: false,
    reads,
    readBytes,
    readTimeMs: current.readTimeMs - previous.readTimeMs,
    bytesPerRead: reads > 0 ? readBytes / reads : null,
    byBackendType,
  };
}
