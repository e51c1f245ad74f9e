import { z } from 'zod';

/**
 * "Who was reading": the statements that had reads in flight over a recorded range, worked out
 * from the recorded frames and processes tables only. Every figure names its source and rate,
 * because each is sampled, not counted: pg_aios at every frame (20 Hz by default), the scan map
 * 5 times a second, the processes table twice a second.
 */

/** One wait event of a statement's processes and the share of its processes-table rows in it. */
export const readerWaitSchema = z.object({
  /** "waitEventType:waitEvent" as pg_stat_activity reports it, e.g. "IO:DataFileRead"; "running (no wait)" for none. */
  event: z.string(),
  /** Rows of the statement's processes in this wait / all its rows (2 Hz processes table), 0..1. */
  share: z.number(),
});
export type ReaderWait = z.infer<typeof readerWaitSchema>;

/** Statements of one query text: one row of the list. */
export const readerRowSchema = z.object({
  /** The query's first 200 characters; null when no processes table named the process. */
  queryText: z.string().nullable(),
  /**
   * Executions (pid + query start) of this text with reads in flight. A row no processes table named
   * (queryText null) counts 1 per pid: its executions cannot be told apart.
   */
  executions: z.number(),
  /** Every process that read for it: leaders and their parallel workers. */
  pids: z.array(z.number()),
  /** Backend types of those processes, e.g. ["client backend", "parallel worker"]. */
  backendTypes: z.array(z.string()),
  /** Frames where its processes had a read in pg_aios, times the sample interval: seconds. */
  sampleSeconds: z.number(),
  /** Frames where its processes had a read in pg_aios. */
  samples: z.number(),
  /** Mean and peak reads in flight over those frames (pg_aios). */
  readsInFlightMean: z.number(),
  readsInFlightPeak: z.number(),
  /** Bytes of the reads seen in flight / their count (pg_aios, per sample); null when none. */
  bytesPerReadInFlight: z.number().nullable(),
  /**
   * Blocks its scans advanced in the range × block size (scan map, 5 Hz): bytes its relation scans
   * got through. 0 when no scan of it was mapped; null when the block size is unknown.
   */
  scanBytes: z.number().nullable(),
  /** Relations its scans read (schema.table when resolved). */
  relations: z.array(z.string()),
  /** Its most frequent wait events, most frequent first (at most 3). */
  waits: z.array(readerWaitSchema),
  /** First frame with a read of it in flight, epoch ms (server clock). */
  firstReadAt: z.number(),
  /** When its reads were in flight, [from, to] epoch ms, merged across small gaps; capped in count. */
  intervals: z.array(z.tuple([z.number(), z.number()])),
});
export type ReaderRow = z.infer<typeof readerRowSchema>;

/** GET /api/targets/:id/history/readers?from&to (at most MAX_RAW_RANGE_MS). */
export const historyReadersSchema = z.object({
  targetId: z.string(),
  from: z.number(),
  to: z.number(),
  /** Frames in the range and the interval the figures multiply by (median spacing), ms. */
  frames: z.number(),
  sampleIntervalMs: z.number().nullable(),
  /** Frames whose pg_aios could be read: none means reads in flight are unknown, not zero. */
  framesWithInflight: z.number(),
  rows: z.array(readerRowSchema),
  /** io workers are not statements: frames with io worker samples, and the busy share of them. */
  ioWorkers: z.object({ samples: z.number(), busyShare: z.number().nullable() }),
});
export type HistoryReaders = z.infer<typeof historyReadersSchema>;
