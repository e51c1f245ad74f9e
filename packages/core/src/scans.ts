import type { ScanView } from '@aioscope/spec';
import { isRead, ioKey, type AioRow } from './fastTick.ts';
import { parseTargetDesc, relationKey, type RelationFile } from './targetDesc.ts';

/** A scan with no read in flight for this long is marked ended. */
export const SCAN_IDLE_MS = 1_000;
/** Ended scans stay on the map this long, so a viewer sees where they stopped. */
export const SCAN_RETENTION_MS = 15_000;
/** Frontier speed is measured over this much server time. */
export const SCAN_RATE_WINDOW_MS = 2_000;
/** A read this far (or a quarter of the relation) behind the frontier means the process started over. */
export const RESTART_BACKWARD_BLOCKS = 1024;
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

/** The reads of a lane with none in flight: one shared empty map, not one per lane per sample. */
const NO_READS: ReadonlyMap<string, ReadSeen> = new Map();

interface ScanState {
  key: string;
  pid: number;
  /** The parallel leader when this process is a parallel worker. */
  leaderPid: number | null;
  file: RelationFile;
  activity: string;
  /** First block of the scan: where it was first seen, or 0 when first seen near the start. */
  startBlock: number;
  /** Blocks done, counted in scan order from startBlock (a synchronized scan wraps around). */
  done: number;
  /** Furthest scan-order distance seen in flight. */
  furthestDistance: number;
  startedAt: number;
  lastSeenAt: number;
  /** Reads of this scan in the previous sample, by I/O identity. */
  reads: ReadonlyMap<string, ReadSeen>;
  /** (server time, blocks done) pairs over the rate window: the trail its speed is read from. */
  progressTrail: { t: number; done: number }[];
  inflight: [number, number][];
  completed: boolean;
  /** Server time of the first sample that showed the scan, and its statement's query_start. */
  firstSeenT: number;
  queryStart: number | null;
  /** Whether startBlock has been checked against the scan's speed (see settleStart). */
  startSettled: boolean;
}

/**
 * A scan first seen this close to block 0 is taken to have started at block 0: the sampler
 * cannot see reads that began and ended before its first sample.
 */
export const START_SNAP_BLOCKS = 64;

/**
 * A synchronized sequential scan (synchronize_seqscans, on by default) joins another scan of the
 * same table where it is, reads to the end and wraps around to where it joined. Its first blocks
 * are often hits on buffers the other scan just read, so its own first read comes later than its
 * true start. Ended after wrapping, within this share of the table of where its reads were first
 * seen, it is taken as complete (and the view says how it was judged).
 */
export const WRAP_CLOSE_FRACTION = 0.05;

export interface ScanUpdate {
  t: number;
  aios: readonly AioRow[];
  /** What each process is doing, by pid (see activityOf). */
  activityByPid: ReadonlyMap<number, string>;
  /** pg_stat_activity.query_start of each process (server clock, epoch ms). */
  queryStartByPid?: ReadonlyMap<number, number | null>;
  /** pg_stat_activity.leader_pid of each process whose details were read (parallel workers). */
  leaderByPid?: ReadonlyMap<number, number | null>;
  resolve: (file: RelationFile) => ResolvedRelation | undefined;
  blockSize: number;
}

/**
 * The live scan map's memory: per (process, relation fork), the block ranges in flight, how far
 * the scan got, look-ahead and speed. Fed one pg_aios sample at a time; pure apart from its own
 * state, so it is unit-tested with recorded samples.
 */
export class ScanTracker {
  private readonly scans = new Map<string, ScanState>();

  /** Follows one sample and returns the map at its moment: advance, then views. */
  update(input: ScanUpdate): ScanView[] {
    this.advance(input);
    return this.views(input);
  }

  /**
   * Follows one pg_aios sample. Every sample must pass through here (a read seen once and gone
   * by the next is progress), but the views are built only when a frame carries the map:
   * at 20 Hz with a few dozen parallel workers' lanes kept for SCAN_RETENTION_MS, building them
   * on every tick was most of what the tracker allocated.
   */
  advance(input: ScanUpdate): void {
    const seenNow = new Map<string, Map<string, ReadSeen>>();
    const reads: { key: string; id: string; first: number; last: number; pid: number; file: RelationFile }[] = [];
    for (const row of input.aios) {
      if (!isRead(row)) continue;
      const desc = parseTargetDesc(row.targetDesc);
      if (desc === null || desc.firstBlock === null || desc.lastBlock === null) continue;
      reads.push({
        key: `${row.pid}:${relationKey(desc.file)}`,
        id: ioKey(row),
        first: desc.firstBlock,
        last: desc.lastBlock,
        pid: row.pid,
        file: desc.file,
      });
    }
    // New scans start at the lowest block they show in their first sample.
    const lowestByKey = new Map<string, number>();
    for (const read of reads) lowestByKey.set(read.key, Math.min(lowestByKey.get(read.key) ?? Infinity, read.first));

    for (const read of reads) {
      let scan = this.scans.get(read.key);
      const total = scan === undefined ? undefined : this.totalBlocks(scan, input);
      // A read behind where the scan got (or any read after it completed) starts a new scan. A
      // pause alone does not: a scan riding another's buffers (hits) issues no I/O for a while.
      const restarted =
        scan !== undefined &&
        !seenNow.has(read.key) &&
        (scan.completed ||
          distanceOf(scan, read.first, total) < scan.done - Math.min(RESTART_BACKWARD_BLOCKS, (total ?? Infinity) / 4));
      if (scan === undefined || restarted) {
        const lowest = lowestByKey.get(read.key) ?? read.first;
        scan = {
          key: read.key,
          pid: read.pid,
          leaderPid: input.leaderByPid?.get(read.pid) ?? null,
          file: read.file,
          activity: input.activityByPid.get(read.pid) ?? 'reading',
          startBlock: lowest <= START_SNAP_BLOCKS ? 0 : lowest,
          done: 0,
          furthestDistance: 0,
          startedAt: input.t,
          lastSeenAt: input.t,
          reads: new Map(),
          progressTrail: [],
          inflight: [],
          completed: false,
          firstSeenT: input.t,
          queryStart: input.queryStartByPid?.get(read.pid) ?? null,
          startSettled: lowest <= START_SNAP_BLOCKS,
        };
        scan.done = distanceOf(scan, lowest, undefined);
        this.scans.set(read.key, scan);
      }
      const sampleReads = seenNow.get(read.key) ?? new Map<string, ReadSeen>();
      sampleReads.set(read.id, { first: read.first, last: read.last });
      seenNow.set(read.key, sampleReads);
    }

    for (const scan of this.scans.values()) {
      const total = this.totalBlocks(scan, input);
      const now: ReadonlyMap<string, ReadSeen> = seenNow.get(scan.key) ?? NO_READS;
      // Reads that left pg_aios since the previous sample are done: their end is reached.
      for (const [id, read] of scan.reads) {
        if (!now.has(id)) scan.done = Math.max(scan.done, distanceOf(scan, read.last, total) + 1);
      }
      if (now.size > 0) {
        let lowest = Infinity;
        let highest = -Infinity;
        for (const read of now.values()) {
          lowest = Math.min(lowest, distanceOf(scan, read.first, total));
          highest = Math.max(highest, distanceOf(scan, read.last, total));
        }
        // Reads are issued in scan order: everything before the lowest one in flight was read.
        scan.done = Math.max(scan.done, lowest);
        scan.furthestDistance = Math.max(scan.furthestDistance, highest);
        scan.lastSeenAt = input.t;
        scan.activity = input.activityByPid.get(scan.pid) ?? scan.activity;
        scan.leaderPid = input.leaderByPid?.get(scan.pid) ?? scan.leaderPid;
      }
      settleStart(scan);
      if (total !== undefined) {
        scan.done = Math.min(scan.done, total);
        const ended = input.t - scan.lastSeenAt > SCAN_IDLE_MS;
        const wrapped = scan.startBlock > 0 && scan.done > total - scan.startBlock;
        if (
          scan.done >= total ||
          (ended && wrapped && total - scan.done <= Math.max(START_SNAP_BLOCKS, total * WRAP_CLOSE_FRACTION))
        ) {
          scan.done = total;
          scan.completed = true;
        }
      }
      // An idle lane (most of those kept after their scan ended) keeps its empty ranges as they are.
      if (now.size > 0 || scan.inflight.length > 0) {
        scan.inflight = mergeRanges([...now.values()].map((read) => [read.first, read.last]));
      }
      scan.reads = now;
      scan.progressTrail.push({ t: input.t, done: scan.done });
      while (scan.progressTrail.length > 2 && (scan.progressTrail[0]?.t ?? input.t) < input.t - SCAN_RATE_WINDOW_MS) {
        scan.progressTrail.shift();
      }
    }

    this.forgetOld(input.t);
  }

  /** Every tracked scan as the map shows it at `at.t`, the moment of the last sample advanced to. */
  views(at: Pick<ScanUpdate, 't' | 'resolve' | 'blockSize'>): ScanView[] {
    return [...this.scans.values()].map((scan) => this.view(scan, at));
  }

  private totalBlocks(scan: ScanState, input: Pick<ScanUpdate, 'resolve'>): number | undefined {
    const blocks = input.resolve(scan.file)?.blocks;
    return blocks !== undefined && blocks > 0 ? blocks : undefined;
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

  private view(scan: ScanState, input: Pick<ScanUpdate, 't' | 'resolve' | 'blockSize'>): ScanView {
    const resolved = input.resolve(scan.file);
    const total = this.totalBlocks(scan, input);
    const oldest = scan.progressTrail[0];
    const newest = scan.progressTrail[scan.progressTrail.length - 1];
    const span = oldest !== undefined && newest !== undefined ? newest.t - oldest.t : 0;
    const ended = input.t - scan.lastSeenAt > SCAN_IDLE_MS;
    const highestNow = scan.inflight.reduce(
      (max, [first, last]) => Math.max(max, distanceOf(scan, last, total), distanceOf(scan, first, total)),
      -Infinity,
    );
    const frontier = total === undefined ? scan.startBlock + scan.done : (scan.startBlock + scan.done) % total;
    return {
      key: scan.key,
      pid: scan.pid,
      leaderPid: scan.leaderPid,
      activity: scan.activity,
      relation: {
        databaseOid: scan.file.databaseOid,
        relfilenode: scan.file.relfilenode,
        fork: scan.file.fork,
        name: resolved?.name ?? null,
        blocks: resolved?.blocks ?? null,
      },
      inflight: scan.inflight,
      startBlock: scan.startBlock,
      blocksDone: scan.done,
      frontier: scan.completed && total !== undefined && scan.startBlock === 0 ? total : frontier,
      furthest:
        total === undefined
          ? scan.startBlock + scan.furthestDistance
          : (scan.startBlock + scan.furthestDistance) % total,
      lookAheadBlocks: scan.inflight.length > 0 ? Math.max(0, highestNow + 1 - scan.done) : 0,
      progress: total !== undefined ? Math.min(1, scan.done / total) : null,
      completed: scan.completed,
      bytesPerSecond:
        span >= 200 && oldest !== undefined && newest !== undefined && !ended
          ? ((newest.done - oldest.done) * input.blockSize * 1000) / span
          : null,
      startedAt: scan.startedAt,
      lastSeenAt: scan.lastSeenAt,
      ended,
    };
  }
}

/** Speed is judged over at least this much server time before the start block is settled. */
const SETTLE_AFTER_MS = 100;

/**
 * A scan first seen at block L may have started at 0 and read L blocks before the first sample
 * (fast storage, a low sample rate), or have joined another scan at L (synchronize_seqscans). If,
 * at its measured speed, it could have read L blocks between its statement's start and the first
 * sample (with a factor 2 of slack), it is taken to have started at block 0.
 */
function settleStart(scan: ScanState): void {
  if (scan.startSettled) return;
  const first = scan.progressTrail[0];
  const last = scan.progressTrail[scan.progressTrail.length - 1];
  if (first === undefined || last === undefined || last.t - first.t < SETTLE_AFTER_MS) return;
  scan.startSettled = true;
  if (scan.queryStart === null) return;
  const blocksPerMs = (last.done - first.done) / (last.t - first.t);
  const couldHaveRead = blocksPerMs * Math.max(0, scan.firstSeenT - scan.queryStart) * 2 + START_SNAP_BLOCKS;
  if (scan.startBlock > couldHaveRead) return;
  const offset = scan.startBlock;
  scan.startBlock = 0;
  scan.done += offset;
  scan.furthestDistance += offset;
  for (const point of scan.progressTrail) point.done += offset;
}

/** Blocks from the scan's start to `block` in scan order, wrapping when the relation size is known. */
function distanceOf(scan: Pick<ScanState, 'startBlock'>, block: number, total: number | undefined): number {
  const distance = block - scan.startBlock;
  if (distance >= 0 || total === undefined) return distance;
  return distance + total;
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
