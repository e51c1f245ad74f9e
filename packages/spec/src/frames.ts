import { z } from 'zod';

/**
 * The frame contract: what the sampler produces and the UI draws. Frames are the only thing the
 * browser receives about a server's I/O, so every figure here is documented with its source.
 * Each type is inferred from its schema, which the browser parses every payload with.
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

// JSON object keys are strings; zod reads a numeric key such as "20674" as the number it spells.
const pidKey = z.number();

export const countAndBytesSchema = z.object({
  count: z.number(),
  bytes: z.number(),
});
export type CountAndBytes = z.infer<typeof countAndBytesSchema>;

/** One io worker as seen in pg_stat_activity at the sample instant. */
export const ioWorkerSampleSchema = z.object({
  pid: z.number(),
  /** true when its wait event is anything but IoWorkerMain (idle in its main loop). */
  busy: z.boolean(),
  /** Its wait event when busy (null: running, no wait); absent when idle in IoWorkerMain, to keep frames small. */
  waitEvent: z.string().nullable().optional(),
});
export type IoWorkerSample = z.infer<typeof ioWorkerSampleSchema>;

/**
 * One (process, relation) pair reading through AIO, reconstructed from pg_aios target_desc block
 * ranges. Block numbers are relation-wide. The frontier is the furthest block known to be done:
 * the end of reads that left pg_aios, or the start of the lowest read still in flight, counted in
 * scan order from where the scan started.
 */
export const scanViewSchema = z.object({
  key: z.string(),
  pid: z.number(),
  /**
   * The parallel leader when this process is a parallel worker (pg_stat_activity.leader_pid): its
   * reads are a lane of the leader's scan. null for a leader or a process that runs alone.
   */
  leaderPid: z.number().nullable(),
  /** What the process is doing, e.g. "SELECT", "VACUUM", "ANALYZE", "autovacuum". */
  activity: z.string(),
  relation: z.object({
    databaseOid: z.number(),
    relfilenode: z.number(),
    fork: z.string(),
    /** schema.table, once resolved in its database; null until then or when it cannot be. */
    name: z.string().nullable(),
    /** pg_relation_size / block size when resolved. */
    blocks: z.number().nullable(),
  }),
  /** Block ranges [first, last] in flight at this sample. */
  inflight: z.array(z.tuple([z.number(), z.number()])),
  /**
   * Where the scan started: the lowest block of its first sample (0 when that is near 0). A
   * synchronized seqscan starts mid-table and wraps around to it.
   */
  startBlock: z.number(),
  /** Blocks read, counted from startBlock in scan order. */
  blocksDone: z.number(),
  /** Block the scan has reached (relation-wide block number). */
  frontier: z.number(),
  /** Furthest block ever seen in flight for this scan. */
  furthest: z.number(),
  /** Furthest block in flight now minus the frontier; 0 when nothing is in flight. */
  lookAheadBlocks: z.number(),
  /** blocksDone / blocks, 0..1; null until the relation size is known. */
  progress: z.number().nullable(),
  /** The scan read the whole relation (reached its end, or wrapped around to where it started). */
  completed: z.boolean(),
  /** Frontier advance over the server's clock, bytes per second, over the last 2 s; null until known. */
  bytesPerSecond: z.number().nullable(),
  startedAt: z.number(),
  lastSeenAt: z.number(),
  /** No read in flight for SCAN_IDLE_MS: the scan ended or paused. */
  ended: z.boolean(),
});
export type ScanView = z.infer<typeof scanViewSchema>;

/**
 * One fast-tick sample of one target: pg_aios plus the wait state of every process,
 * read in one round trip. `t` is the server's clock (clock_timestamp()) in epoch milliseconds.
 */
export const liveFrameSchema = z.object({
  t: z.number(),
  /** Round trip of the sampling query as measured by aioscope, in milliseconds. */
  sampleMs: z.number(),
  /** Ticks skipped (previous tick still running) since the previous frame. */
  skippedTicks: z.number(),
  /**
   * Read I/Os in pg_aios at the sample instant (operation readv). null when pg_aios cannot be read
   * (PostgreSQL older than 18, or the role lacks pg_read_all_stats).
   */
  inflight: z
    .object({
      total: countAndBytesSchema,
      byState: z.partialRecord(z.enum(AIO_STATES), countAndBytesSchema),
      /**
       * SUBMITTED reads that io workers must run (not f_sync, not f_localmem): the queue backlog
       * proxy. null unless io_method = worker: under io_uring a SUBMITTED read is in the kernel.
       */
      workerBacklog: z.number().nullable(),
    })
    .nullable(),
  /**
   * Reads whose (pid, io_id, io_generation) was not in the previous sample: distinct I/Os, so a read
   * that stays in flight across several samples is counted once. blocksHistogram[n] = reads of n blocks.
   */
  newReads: z
    .object({
      count: z.number(),
      bytes: z.number(),
      blocksHistogram: z.record(z.number(), z.number()),
    })
    .nullable(),
  /** io workers (io_method = worker); an empty list under sync or io_uring. */
  ioWorkers: z.array(ioWorkerSampleSchema),
  /** Processes in each AIO-related wait event at the sample instant, by "backendType:waitEvent". */
  waits: z.record(z.string(), z.number()),
  /** Reads in flight per issuing process at the sample instant: pid → [count, bytes]. */
  byProcess: z.record(pidKey, z.tuple([z.number(), z.number()])),
  /**
   * Relation scans with reads in flight now or in the last seconds (the live scan map). Present on
   * at most SCANS_PER_SECOND frames a second (it is most of a frame's bytes); absent means "as in
   * the last frame that had it".
   */
  scans: z.array(scanViewSchema).optional(),
});
export type LiveFrame = z.infer<typeof liveFrameSchema>;

/** A process doing I/O, as the processes table shows it (sent at 2 Hz, not per frame). */
export const processViewSchema = z.object({
  pid: z.number(),
  backendType: z.string(),
  database: z.string().nullable(),
  user: z.string().nullable(),
  state: z.string().nullable(),
  /** Server clock when the current statement began, epoch ms. */
  queryStart: z.number().nullable(),
  /** The first 200 characters of the query; the whole text is fetched on demand. */
  queryPreview: z.string().nullable(),
  waitEventType: z.string().nullable(),
  waitEvent: z.string().nullable(),
  readsInFlight: z.number(),
  bytesInFlight: z.number(),
  /** The concurrency limit that applies to its context, from the server's settings. */
  limit: z.object({ name: z.string(), value: z.number().nullable() }),
  /** io_max_concurrency: the hard cap on one process's in-flight I/Os. */
  ioMaxConcurrency: z.number().nullable(),
  activity: z.string(),
});
export type ProcessView = z.infer<typeof processViewSchema>;

/** Counter deltas from pg_stat_io between two stat ticks (reads of relations, all contexts). */
export const ioStatDeltaSchema = z.object({
  /** Server clock at the end of the interval, epoch ms. */
  t: z.number(),
  /** Length of the interval on the server's clock, seconds. */
  intervalSeconds: z.number(),
  /**
   * true when the counters were reset inside the interval (stats_reset changed or a counter went
   * backwards): no delta is computed for it and the chart draws a gap.
   */
  reset: z.boolean(),
  reads: z.number(),
  readBytes: z.number(),
  /** Milliseconds spent waiting for reads (needs track_io_timing). */
  readTimeMs: z.number(),
  /** readBytes / reads for this interval, or null when no read finished being counted. */
  bytesPerRead: z.number().nullable(),
  byBackendType: z.record(z.string(), z.object({ reads: z.number(), readBytes: z.number() })),
  /** By pg_stat_io context; `bulkread` is the ring that large sequential scans read through. */
  byContext: z.record(z.string(), z.object({ reads: z.number(), readBytes: z.number() })),
  /**
   * By pg_stat_io row: keys "backend_type/object/context" (statIoGroupKey in core), for the
   * /metrics counters. Absent in recordings made before it existed; readTimeMs (the row's
   * read_time, ms) likewise.
   */
  byGroup: z
    .record(z.string(), z.object({ reads: z.number(), readBytes: z.number(), readTimeMs: z.number().optional() }))
    .optional(),
});
export type IoStatDelta = z.infer<typeof ioStatDeltaSchema>;
