import type { ScanView } from '@aioscope/spec';
import { isRead, ioKey, type AioRow } from './fastTick.ts';
import { parseTargetDesc, relationKey, type RelationFile } from './targetDesc.ts';

/** A scan with no read in flight for this long is marked ended. */
export const SCAN_IDLE_MS = 1_000;
/** Ended scans stay on the map this long, so a viewer sees where they stopped. */
export const SCAN_RETENTION_MS = 15_000;
/** Frontier speed is measured over this much server time. */
export const SCAN_RATE_WINDOW_MS = 2_000;
/** At most this many scans are tracked; the least recently seen are dropped first. */
export const MAX_TRACKED_SCANS = 64;

export interface ResolvedRelation {
  name: string;
  blocks: number;
}

interface ReadSeen {
  first: number;
  last: number;
}

interface ScanState {
  key: string;
  pid: number;
  file: RelationFile;
  activity: string;
  frontier: number;
  furthest: number;
  startedAt: number;
  lastSeenAt: number;
  /** Reads of this scan in the previous sample, by I/O identity. */
  reads: Map<string, ReadSeen>;
  /** (server time, frontier) pairs over the rate window. */
  history: { t: number; frontier: number }[];
  inflight: [number, number][];
}

export interface ScanUpdate {
  t: number;
  aios: readonly AioRow[];
  /** What each process is doing, by pid (see activityOf). */
  activityByPid: ReadonlyMap<number, string>;
  resolve: (file: RelationFile) => ResolvedRelation | undefined;
  blockSize: number;
}

/**
 * The live scan map's memory: per (process, relation fork), the block ranges in flight, the
 * frontier reached, look-ahead and speed. Fed one pg_aios sample at a time; pure apart from its
 * own state, so it is unit-tested with recorded samples.
 */
export class ScanTracker {
  private readonly scans = new Map<string, ScanState>();

  update(input: ScanUpdate): ScanView[] {
    const seenNow = new Map<string, Map<string, ReadSeen>>();
    for (const row of input.aios) {
      if (!isRead(row)) continue;
      const desc = parseTargetDesc(row.targetDesc);
      if (desc === null || desc.firstBlock === null || desc.lastBlock === null) continue;
      const key = `${row.pid}:${relationKey(desc.file)}`;
      let scan = this.scans.get(key);
      if (scan === undefined) {
        scan = {
          key,
          pid: row.pid,
          file: desc.file,
          activity: input.activityByPid.get(row.pid) ?? 'reading',
          frontier: desc.firstBlock,
          furthest: desc.lastBlock,
          startedAt: input.t,
          lastSeenAt: input.t,
          reads: new Map(),
          history: [],
          inflight: [],
        };
        this.scans.set(key, scan);
      }
      const reads = seenNow.get(key) ?? new Map<string, ReadSeen>();
      reads.set(ioKey(row), { first: desc.firstBlock, last: desc.lastBlock });
      seenNow.set(key, reads);
    }

    for (const scan of this.scans.values()) {
      const now = seenNow.get(scan.key) ?? new Map<string, ReadSeen>();
      // Reads that left pg_aios since the previous sample are done: their end is reached.
      for (const [id, read] of scan.reads) {
        if (!now.has(id)) scan.frontier = Math.max(scan.frontier, read.last + 1);
      }
      if (now.size > 0) {
        let lowest = Infinity;
        let highest = -Infinity;
        for (const read of now.values()) {
          lowest = Math.min(lowest, read.first);
          highest = Math.max(highest, read.last);
        }
        // Reads are issued in block order: everything below the lowest one in flight was read.
        scan.frontier = Math.max(scan.frontier, lowest);
        scan.furthest = Math.max(scan.furthest, highest);
        scan.lastSeenAt = input.t;
        scan.activity = input.activityByPid.get(scan.pid) ?? scan.activity;
      }
      scan.reads = now;
      scan.inflight = mergeRanges([...now.values()].map((read) => [read.first, read.last]));
      scan.history.push({ t: input.t, frontier: scan.frontier });
      while (scan.history.length > 2 && (scan.history[0]?.t ?? input.t) < input.t - SCAN_RATE_WINDOW_MS) {
        scan.history.shift();
      }
    }

    this.forgetOld(input.t);
    return [...this.scans.values()].map((scan) => this.view(scan, input));
  }

  private forgetOld(t: number): void {
    for (const [key, scan] of this.scans) {
      if (t - scan.lastSeenAt > SCAN_RETENTION_MS) this.scans.delete(key);
    }
    if (this.scans.size > MAX_TRACKED_SCANS) {
      const oldest = [...this.scans.values()].sort((a, b) => a.lastSeenAt - b.lastSeenAt);
      for (const scan of oldest.slice(0, this.scans.size - MAX_TRACKED_SCANS)) this.scans.delete(scan.key);
    }
  }

  private view(scan: ScanState, input: ScanUpdate): ScanView {
    const resolved = input.resolve(scan.file);
    const blocks = resolved?.blocks ?? null;
    const oldest = scan.history[0];
    const newest = scan.history[scan.history.length - 1];
    const span = oldest !== undefined && newest !== undefined ? newest.t - oldest.t : 0;
    const ended = input.t - scan.lastSeenAt > SCAN_IDLE_MS;
    const highestNow = scan.inflight.reduce((max, [, last]) => Math.max(max, last), -Infinity);
    return {
      key: scan.key,
      pid: scan.pid,
      activity: scan.activity,
      relation: {
        databaseOid: scan.file.databaseOid,
        relfilenode: scan.file.relfilenode,
        fork: scan.file.fork,
        name: resolved?.name ?? null,
        blocks,
      },
      inflight: scan.inflight,
      frontier: scan.frontier,
      furthest: scan.furthest,
      lookAheadBlocks: scan.inflight.length > 0 ? Math.max(0, highestNow + 1 - scan.frontier) : 0,
      progress: blocks !== null && blocks > 0 ? Math.min(1, scan.frontier / blocks) : null,
      bytesPerSecond:
        span >= 200 && oldest !== undefined && newest !== undefined && !ended
          ? ((newest.frontier - oldest.frontier) * input.blockSize * 1000) / span
          : null,
      startedAt: scan.startedAt,
      lastSeenAt: scan.lastSeenAt,
      ended,
    };
  }
}

/** Merges overlapping or adjacent [first, last] ranges, sorted. */
export function mergeRanges(ranges: [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [first, last] of sorted) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

const ACTIVITY_KEYWORDS = ['VACUUM', 'ANALYZE', 'CREATE INDEX', 'REINDEX', 'CLUSTER', 'COPY', 'CREATE DATABASE'];

/** What a process is doing, for labels: the maintenance command, or the query's first keyword. */
export function activityOf(backendType: string, queryPreview: string | null): string {
  if (backendType === 'autovacuum worker') {
    return queryPreview?.startsWith('autovacuum: ') === true
      ? queryPreview.split(' ').slice(0, 3).join(' ')
      : 'autovacuum';
  }
  if (backendType !== 'client backend') return backendType;
  const query = (queryPreview ?? '').replace(/^\s*(\/\*.*?\*\/\s*)*/s, '').toUpperCase();
  const keyword = ACTIVITY_KEYWORDS.find((candidate) => query.startsWith(candidate));
  if (keyword !== undefined) return keyword;
  return /^[A-Z]+/.exec(query)?.[0] ?? 'query';
}

/** Commands whose reads run under maintenance_io_concurrency rather than effective_io_concurrency. */
export function isMaintenanceActivity(activity: string): boolean {
  return /^(VACUUM|ANALYZE|CREATE INDEX|REINDEX|CLUSTER|autovacuum)/.test(activity);
}
