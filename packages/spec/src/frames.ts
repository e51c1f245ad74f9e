/**
 * The frame contract: what the sampler produces and the UI draws. Frames are the only thing the
 * browser receives about a server's I/O, so every figure here is documented with its source.
 */

/** How often frames carry the scan map. */
export const SCANS_PER_SECOND = 5;

/** AIO handle states as pg_aios reports them (src/backend/storage/aio/aio_funcs.c). */
export const AIO_STATES = [
  'HANDED_OUT',
  'DEFINED',
  'STAGED',
  'SUBMITTED',
  'COMPLETED_IO',
  'COMPLETED_SHARED',
  'COMPLETED_LOCAL',
] as const;
export type AioState = (typeof AIO_STATES)[number];

/** Wait events that tell something about asynchronous I/O (pg-aio-reference.md, "Wait events"). */
export const AIO_WAIT_EVENTS = [
  'AioIoCompletion',
  'AioIoUringSubmit',
  'AioIoUringExecution',
  'DataFileRead',
  'BufferIo',
  'AioWorkerSubmissionQueue',
  'AioUringCompletion',
  'AioWorkerControl',
  'IoWorkerMain',
] as const;
export type AioWaitEvent = (typeof AIO_WAIT_EVENTS)[number];

export interface CountAndBytes {
  count: number;
  bytes: number;
}

/** One io worker as seen in pg_stat_activity at the sample instant. */
export interface IoWorkerSample {
  pid: number;
  /** true when its wait event is anything but IoWorkerMain (idle in its main loop). */
  busy: boolean;
  /** Its wait event when busy (null: running, no wait); absent when idle in IoWorkerMain, to keep frames small. */
  waitEvent?: string | null;
}

/**
 * One fast-tick sample of one target: pg_aios plus the wait state of every process,
 * read in one round trip. `t` is the server's clock (clock_timestamp()) in epoch milliseconds.
 */
export interface LiveFrame {
  t: number;
  /** Round trip of the sampling query as measured by aioscope, in milliseconds. */
  sampleMs: number;
  /** Ticks skipped (previous tick still running) since the previous frame. */
  skippedTicks: number;
  /**
   * Read I/Os in pg_aios at the sample instant (operation readv). null when pg_aios cannot be read
   * (PostgreSQL older than 18, or the role lacks pg_read_all_stats).
   */
  inflight: {
    total: CountAndBytes;
    byState: Partial<Record<AioState, CountAndBytes>>;
    /** SUBMITTED reads that io workers must run (not f_sync, not f_localmem): the queue backlog proxy. */
    workerBacklog: number;
  } | null;
  /**
   * Reads whose (pid, io_id, io_generation) was not in the previous sample: distinct I/Os, so a read
   * that stays in flight across several samples is counted once. blocksHistogram[n] = reads of n blocks.
   */
  newReads: {
    count: number;
    bytes: number;
    blocksHistogram: Record<number, number>;
  } | null;
  /** io workers (io_method = worker); an empty list under sync or io_uring. */
  ioWorkers: IoWorkerSample[];
  /** Processes in each AIO-related wait event at the sample instant, by "backendType:waitEvent". */
  waits: Record<string, number>;
  /** Reads in flight per issuing process at the sample instant: pid → [count, bytes]. */
  byProcess: Record<number, [number, number]>;
  /**
   * Relation scans with reads in flight now or in the last seconds (the live scan map). Present on
   * at most SCANS_PER_SECOND frames a second (it is most of a frame's bytes); absent means "as in
   * the last frame that had it".
   */
  scans?: ScanView[];
}

/**
 * One (process, relation) pair reading through AIO, reconstructed from pg_aios target_desc block
 * ranges. Block numbers are relation-wide. The frontier is the furthest block known to be done:
 * the end of reads that left pg_aios, or the start of the lowest read still in flight, counted in
 * scan order from where the scan started.
 */
export interface ScanView {
  key: string;
  pid: number;
  /** What the process is doing, e.g. "SELECT", "VACUUM", "ANALYZE", "autovacuum". */
  activity: string;
  relation: {
    databaseOid: number;
    relfilenode: number;
    fork: string;
    /** schema.table, once resolved in its database; null until then or when it cannot be. */
    name: string | null;
    /** pg_relation_size / block size when resolved. */
    blocks: number | null;
  };
  /** Block ranges [first, last] in flight at this sample. */
  inflight: [number, number][];
  /**
   * Where the scan started: the lowest block of its first sample (0 when that is near 0). A
   * synchronized seqscan starts mid-table and wraps around to it.
   */
  startBlock: number;
  /** Blocks read, counted from startBlock in scan order. */
  blocksDone: number;
  /** Block the scan has reached (relation-wide block number). */
  frontier: number;
  /** Furthest block ever seen in flight for this scan. */
  furthest: number;
  /** Furthest block in flight now minus the frontier; 0 when nothing is in flight. */
  lookAheadBlocks: number;
  /** blocksDone / blocks, 0..1; null until the relation size is known. */
  progress: number | null;
  /** The scan read the whole relation (reached its end, or wrapped around to where it started). */
  completed: boolean;
  /** Frontier advance over the server's clock, bytes per second, over the last 2 s; null until known. */
  bytesPerSecond: number | null;
  startedAt: number;
  lastSeenAt: number;
  /** No read in flight for SCAN_IDLE_MS: the scan ended or paused. */
  ended: boolean;
}

/** A process doing I/O, as the processes table shows it (sent at 2 Hz, not per frame). */
export interface ProcessView {
  pid: number;
  backendType: string;
  database: string | null;
  user: string | null;
  state: string | null;
  /** Server clock when the current statement began, epoch ms. */
  queryStart: number | null;
  /** The first 200 characters of the query; the whole text is fetched on demand. */
  queryPreview: string | null;
  waitEventType: string | null;
  waitEvent: string | null;
  readsInFlight: number;
  bytesInFlight: number;
  /** The concurrency limit that applies to its context, from the server's settings. */
  limit: { name: string; value: number | null };
  /** io_max_concurrency: the hard cap on one process's in-flight I/Os. */
  ioMaxConcurrency: number | null;
  activity: string;
}

/** Counter deltas from pg_stat_io between two stat ticks (reads of relations, all contexts). */
export interface IoStatDelta {
  /** Server clock at the end of the interval, epoch ms. */
  t: number;
  /** Length of the interval on the server's clock, seconds. */
  intervalSeconds: number;
  /**
   * true when the counters were reset inside the interval (stats_reset changed or a counter went
   * backwards): no delta is computed for it and the chart draws a gap.
   */
  reset: boolean;
  reads: number;
  readBytes: number;
  /** Milliseconds spent waiting for reads (needs track_io_timing). */
  readTimeMs: number;
  /** readBytes / reads for this interval, or null when no read finished being counted. */
  bytesPerRead: number | null;
  byBackendType: Record<string, { reads: number; readBytes: number }>;
}
