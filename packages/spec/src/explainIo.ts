import { z } from 'zod';

/**
 * PostgreSQL 19's EXPLAIN (ANALYZE, IO): what the read stream of each scan node (Seq Scan, Bitmap
 * Heap Scan, TID Range Scan) did, as the server reported it. Nothing here is derived: the keys are
 * EXPLAIN's own figures, renamed.
 */
export const explainIoFiguresSchema = z.object({
  /** "Average Prefetch Distance": how many blocks ahead of the scan the read stream had asked for, on average. */
  averagePrefetchDistance: z.number(),
  /** "Max Prefetch Distance": the farthest it looked ahead, in blocks. */
  maxPrefetchDistance: z.number(),
  /** "Prefetch Capacity": the farthest it was allowed to look ahead (pinned buffers), in blocks. */
  prefetchCapacity: z.number(),
  /** "I/O Count": reads issued. */
  ioCount: z.number(),
  /** "I/O Waits": reads the process had to wait for because they had not completed when it needed the block. */
  ioWaits: z.number(),
  /** "Average I/O Size", in blocks (the server's block_size each). */
  averageIoSizeBlocks: z.number(),
  /** "Average I/Os In Progress": reads in flight at once, on average. */
  averageIosInProgress: z.number(),
});
export type ExplainIoFigures = z.infer<typeof explainIoFiguresSchema>;

export const explainIoWorkerSchema = z.object({
  /** EXPLAIN's "Worker Number" (0, 1, …). */
  workerNumber: z.number().int(),
  figures: explainIoFiguresSchema,
});
export type ExplainIoWorker = z.infer<typeof explainIoWorkerSchema>;

export const explainIoNodeSchema = z.object({
  /** Where the node sits in the plan ("0" the top node, "0.1" its second child): the same node across rounds. */
  path: z.string(),
  nodeType: z.string(),
  relationName: z.string().nullable(),
  /** The node's figures over every process that ran it: the leader and its parallel workers together. */
  figures: explainIoFiguresSchema,
  /** Each parallel worker's own figures; empty for a node no worker ran. */
  workers: z.array(explainIoWorkerSchema),
});
export type ExplainIoNode = z.infer<typeof explainIoNodeSchema>;

/** First server version whose EXPLAIN has the IO option. */
export const EXPLAIN_IO_MIN_VERSION_NUM = 190000;

export const explainIoReportSchema = z.object({
  /** server_version_num of the server that ran the EXPLAIN. */
  serverVersionNum: z.number().int(),
  /** The server's block_size in bytes (Average I/O Size is in blocks). */
  blockSize: z.number().int().positive(),
  /** The scan nodes that reported I/O figures; null when the server cannot report them (before 19). */
  nodes: z.array(explainIoNodeSchema).nullable(),
});
export type ExplainIoReport = z.infer<typeof explainIoReportSchema>;
