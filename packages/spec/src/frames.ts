/**
 * The frame contract: what the sampler produces and the UI draws. Frames are the only thing the
 * browser receives about a server's I/O, so every figure here is documented with its source.
 */

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
  waitEvent: string | null;
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
