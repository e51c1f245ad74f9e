import { z } from 'zod';
import { AIO_STATES, ioStatDeltaSchema, liveFrameSchema, processViewSchema } from './frames.ts';
import { capabilitiesSchema, serverInfoSchema } from './targets.ts';

/**
 * The history contract: what the recorder keeps, what the range API returns and what a recording
 * file holds. One set of schemas for the store, the REST routes, the file and the browser, so a
 * recording opened on another laptop is read by the same rules it was written by.
 */

/** Longest range the raw-frames endpoint serves; longer ranges read roll-ups. */
export const MAX_RAW_RANGE_MS = 15 * 60_000;
/** Longest range the roll-ups endpoint serves (the default roll-up retention). */
export const MAX_ROLLUP_RANGE_MS = 31 * 24 * 3_600_000;
/** Most points one roll-up response holds; the server widens the step to stay under it. */
export const MAX_ROLLUP_POINTS = 4_000;
/** Roll-ups are kept per second; a query may ask for any whole multiple of it. */
export const ROLLUP_BASE_STEP_MS = 1_000;

/** Things that happened to a target, drawn as markers on the time line. */
export const HISTORY_EVENT_KINDS = [
  'connected',
  'disconnected',
  'serverRestarted',
  'statsReset',
  'privilegeLost',
  'privilegeRegained',
  'settingsChanged',
  'auditChanged',
  'labRunStarted',
  'labRunEnded',
  'rateChanged',
  'recordingPaused',
  'recordingResumed',
] as const;
export type HistoryEventKind = (typeof HISTORY_EVENT_KINDS)[number];

export const historyEventSchema = z.object({
  /** Epoch ms: the server's clock when known (frames), aioscope's otherwise. */
  t: z.number(),
  kind: z.enum(HISTORY_EVENT_KINDS),
  /** One line a person reads on the marker, e.g. "io_combine_limit 128kB → 8kB". */
  message: z.string(),
});
export type HistoryEvent = z.infer<typeof historyEventSchema>;

/** A processes table as it was at t (recorded at 2 Hz). */
export const processesSnapshotSchema = z.object({
  t: z.number(),
  processes: z.array(processViewSchema),
});
export type ProcessesSnapshot = z.infer<typeof processesSnapshotSchema>;

export const RECORDING_STATES = ['recording', 'paused', 'off'] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];

/** GET /api/targets/:id/history: what is kept for a target and whether recording goes on. */
export const historyExtentSchema = z.object({
  targetId: z.string(),
  recording: z.object({
    state: z.enum(RECORDING_STATES),
    /** Why recording is paused or off, in words (disk full, read-only folder, --no-record). */
    reason: z.string().nullable(),
  }),
  /** First and last instant with raw frames, epoch ms; null when nothing is kept. */
  raw: z.object({ from: z.number(), to: z.number() }).nullable(),
  /** First and last second with roll-ups. */
  rollups: z.object({ from: z.number(), to: z.number() }).nullable(),
  /** Retention in force: raw frames by age, roll-ups by age, everything by size. */
  retention: z.object({ rawMs: z.number(), rollupMs: z.number(), maxBytes: z.number() }),
  /** Bytes the store holds on disk now (0 for a recording file opened in memory). */
  bytesOnDisk: z.number(),
});
export type HistoryExtent = z.infer<typeof historyExtentSchema>;

/** Query of every range endpoint: from < to, epoch ms. */
/** The last instant a JavaScript Date can hold, epoch ms: later "times" are refused, not clamped. */
export const LAST_DATE_MS = 8.64e15;

/**
 * A time in a query string, epoch ms. Not z.coerce: it reads an empty value as 0 (a range in 1970
 * instead of "missing"). The checks are in the order a person would fix them: past the last date
 * before "whole ms" (1e300 is an integer to JavaScript), then negative.
 */
export function epochMsQueryParam(name: string): z.ZodType<number> {
  return z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z
      .number({ error: `${name} must be a number (epoch ms)` })
      .max(LAST_DATE_MS, `${name} is past the last date a clock can show (${LAST_DATE_MS} ms)`)
      .int(`${name} must be whole ms`)
      .min(0, `${name} must not be negative`),
  );
}

export const historyRangeQuerySchema = z
  .object({ from: epochMsQueryParam('from'), to: epochMsQueryParam('to') })
  .refine((range) => range.from < range.to, { message: 'from must be before to', path: ['from'] });
export type HistoryRange = z.infer<typeof historyRangeQuerySchema>;

/** GET /api/targets/:id/history/frames?from&to (at most MAX_RAW_RANGE_MS): every raw sample. */
export const historyFramesSchema = z.object({
  targetId: z.string(),
  from: z.number(),
  to: z.number(),
  frames: z.array(liveFrameSchema),
  ioDeltas: z.array(ioStatDeltaSchema),
  processes: z.array(processesSnapshotSchema),
  /**
   * The newest frame before `from` that carried a scan map, so the scan map of the range's first
   * frames draws as it did live (frames carry it only 5 times a second).
   */
  scansBefore: liveFrameSchema.nullable(),
  /** The newest processes table before `from`, for the same reason. */
  processesBefore: processesSnapshotSchema.nullable(),
});
export type HistoryFrames = z.infer<typeof historyFramesSchema>;

const meanMaxSchema = z.object({ mean: z.number(), max: z.number() });

/**
 * One step of roll-ups: the frames and pg_stat_io deltas whose t falls in [t, t + stepMs). Means
 * are over frames (each sample weighs the same); sums add up exactly across steps.
 */
export const rollupPointSchema = z.object({
  t: z.number(),
  /** Frames in the step; 0 means no sample (a gap, drawn as one). */
  frames: z.number(),
  readsInFlight: meanMaxSchema,
  bytesInFlight: meanMaxSchema,
  /** pg_aios readable in this step's frames (false: role or version could not tell). */
  inflightKnown: z.boolean(),
  /** Distinct reads first seen in the step (frames' newReads), and their bytes. */
  newReads: z.number(),
  newReadBytes: z.number(),
  /** io worker samples and busy ones: the busy share is busy / samples (workerBusy.ts). */
  workerSamples: z.number(),
  workerBusy: z.number(),
  /** SUBMITTED reads waiting for an io worker (worker method only); null when never known. */
  workerBacklog: meanMaxSchema.nullable(),
  /**
   * Reads in flight by pg_aios state, the mean over the step's frames that sampled pg_aios (a state
   * no read was in is left out: 0). null when not recorded: no pg_aios in the step, or roll-ups
   * written before the store kept them (store version 4).
   */
  readsByState: z.partialRecord(z.enum(AIO_STATES), z.number()).nullable(),
  /** Processes in each AIO wait event, mean over frames, by "backendType:waitEvent". */
  waits: z.record(z.string(), z.number()),
  /** pg_stat_io deltas ending in the step (reads and bytes add; reset intervals are left out). */
  statReads: z.number(),
  statReadBytes: z.number(),
  sampleMs: meanMaxSchema,
  skippedTicks: z.number(),
});
export type RollupPoint = z.infer<typeof rollupPointSchema>;

/** GET /api/targets/:id/history/rollups?from&to[&stepMs] */
export const historyRollupsSchema = z.object({
  targetId: z.string(),
  from: z.number(),
  to: z.number(),
  stepMs: z.number(),
  points: z.array(rollupPointSchema),
});
export type HistoryRollups = z.infer<typeof historyRollupsSchema>;

/** GET /api/targets/:id/history/events?from&to */
export const historyEventsSchema = z.object({
  targetId: z.string(),
  events: z.array(historyEventSchema),
});
export type HistoryEvents = z.infer<typeof historyEventsSchema>;

/** POST /api/recordings (a recording file as the body): the target it was opened as. */
export const openedRecordingSchema = z.object({
  targetId: z.string(),
  name: z.string(),
  from: z.number(),
  to: z.number(),
});
export type OpenedRecording = z.infer<typeof openedRecordingSchema>;

/* ---------------- Recording file ----------------
 * gzip of newline-delimited JSON. Line 1 is the header; then one record per line in time order;
 * the last line is the trailer, whose counts must match: a file cut short has no trailer or wrong
 * counts, and is refused rather than shown incomplete.
 */

export const RECORDING_FORMAT = 'aioscope-recording';
/**
 * Bumped when a reader of an older version could misread a file; newer files are refused.
 * 2: the file may carry its own 1 s roll-ups ('rollup' lines after the records, counted in
 * counts.rollups), so opening it need not parse every frame (version 1 readers would refuse the
 * unknown line kind with a confusing message instead of naming the version).
 */
export const RECORDING_VERSION = 2;
/** Suggested file name suffix. */
export const RECORDING_EXTENSION = '.aioscope.gz';

export const recordingCountsSchema = z.object({
  frames: z.number().int().min(0),
  ioDeltas: z.number().int().min(0),
  processes: z.number().int().min(0),
  events: z.number().int().min(0),
  /** 'rollup' lines: present when the file carries its own roll-ups (version 2 on). */
  rollups: z.number().int().min(0).optional(),
});
export type RecordingCounts = z.infer<typeof recordingCountsSchema>;

export const recordingHeaderSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.number().int().min(1),
  /** aioscope version that wrote the file. */
  producer: z.string(),
  createdAt: z.number(),
  target: z.object({ id: z.string(), name: z.string() }),
  server: serverInfoSchema.nullable(),
  capabilities: capabilitiesSchema.nullable(),
  sampleRateHz: z.number(),
  statRateHz: z.number(),
  range: z.object({ from: z.number(), to: z.number() }),
  counts: recordingCountsSchema,
});
export type RecordingHeader = z.infer<typeof recordingHeaderSchema>;

/**
 * One second of roll-ups as the store keeps it (core's RollupAccumulator: sums and maxima, so
 * seconds add up into longer steps exactly), t being the second's start.
 */
export const recordingRollupSchema = z.object({
  t: z.number(),
  frames: z.number(),
  inflightFrames: z.number(),
  readsSum: z.number(),
  readsMax: z.number(),
  bytesSum: z.number(),
  bytesMax: z.number(),
  newReads: z.number(),
  newReadBytes: z.number(),
  workerSamples: z.number(),
  workerBusy: z.number(),
  backlogFrames: z.number(),
  backlogSum: z.number(),
  backlogMax: z.number(),
  stateFrames: z.number(),
  stateSums: z.record(z.enum(AIO_STATES), z.number()),
  waitSums: z.record(z.string(), z.number()),
  statReads: z.number(),
  statReadBytes: z.number(),
  sampleMsSum: z.number(),
  sampleMsMax: z.number(),
  skippedTicks: z.number(),
});
export type RecordingRollup = z.infer<typeof recordingRollupSchema>;

export const recordingLineSchema = z.discriminatedUnion('k', [
  z.object({ k: z.literal('frame'), v: liveFrameSchema }),
  z.object({ k: z.literal('ioDelta'), v: ioStatDeltaSchema }),
  z.object({ k: z.literal('processes'), v: processesSnapshotSchema }),
  z.object({ k: z.literal('event'), v: historyEventSchema }),
  z.object({ k: z.literal('rollup'), v: recordingRollupSchema }),
  z.object({ k: z.literal('end'), counts: recordingCountsSchema }),
]);
export type RecordingLine = z.infer<typeof recordingLineSchema>;

/**
 * Longest range exported as a recording file: a file holds raw frames (what is shared is every
 * sample), and an hour at 100 Hz is already ~360,000 of them.
 */
export const MAX_EXPORT_RANGE_MS = 3_600_000;
/** Largest recording file POST /api/recordings accepts (compressed bytes). */
export const MAX_RECORDING_FILE_BYTES = 256 * 1024 * 1024;
/** Recordings open at once in one aioscope; opening one more closes the oldest. */
export const MAX_OPEN_RECORDINGS = 8;
