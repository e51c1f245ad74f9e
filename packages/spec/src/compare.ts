import { z } from 'zod';
import { epochMsQueryParam, MAX_ROLLUP_RANGE_MS } from './history.ts';
import { serverSettingSchema } from './targets.ts';

/**
 * Compare: two recorded ranges side by side (a watched target's range, an opened recording file,
 * an opened baseline: anything the history routes serve), with the plain sentence of the
 * differences that matter. Side A is the range looked at, side B the one it is compared against
 * (a baseline, "the same length just before"): the sentence says how A differs from B.
 */

/** Longest range of one side: what roll-ups are served for. Scans need raw frames (MAX_RAW_RANGE_MS). */
export const MAX_COMPARE_RANGE_MS = MAX_ROLLUP_RANGE_MS;

const targetIdParam = (name: string): z.ZodType<string> =>
  z
    .string({ error: `${name} is missing: the target id of that side` })
    .min(1, `${name} is missing: the target id of that side`);

/**
 * GET /api/compare?aTarget&aFrom&aTo&bTarget&bFrom&bTo. Every message names its parameter; an
 * unknown target is a 404 from the history lookup, not a parse error.
 */
export const compareQuerySchema = z
  .object({
    aTarget: targetIdParam('aTarget'),
    aFrom: epochMsQueryParam('aFrom'),
    aTo: epochMsQueryParam('aTo'),
    bTarget: targetIdParam('bTarget'),
    bFrom: epochMsQueryParam('bFrom'),
    bTo: epochMsQueryParam('bTo'),
  })
  .refine((query) => query.aFrom < query.aTo, { message: 'aFrom must be before aTo', path: ['aFrom'] })
  .refine((query) => query.bFrom < query.bTo, { message: 'bFrom must be before bTo', path: ['bFrom'] });
export type CompareQuery = z.infer<typeof compareQuerySchema>;

/** One side as the query names it: what a link to the Compare view carries. */
export interface CompareSideRef {
  targetId: string;
  from: number;
  to: number;
}

/** A figure of one side: its value, or null with the reason it could not be measured. */
export const compareFigureSchema = z.object({
  value: z.number().nullable(),
  /** Why value is null, in words ("cannot be measured before 18: pg_stat_io counts blocks"). */
  reason: z.string().nullable(),
  /** Where it comes from, e.g. "pg_stat_io read_bytes / reads over the range". */
  source: z.string(),
  /** How often that source is read, e.g. "1 Hz". */
  rate: z.string(),
});
export type CompareFigure = z.infer<typeof compareFigureSchema>;

/** One wait event and its share of the side's AIO wait samples (processes × frames). */
export const compareWaitSchema = z.object({
  /** "backendType:waitEvent" as frames key it, e.g. "client backend:AioIoCompletion". */
  event: z.string(),
  share: z.number(),
});
export type CompareWait = z.infer<typeof compareWaitSchema>;

/** One relation scan of a side, from the scan map (its parallel workers folded into the leader's row). */
export const compareScanSchema = z.object({
  /** schema.table when resolved, else "relfilenode N". */
  relation: z.string(),
  /** The leader's (or lone process's) pid. */
  pid: z.number(),
  /** Processes that read for it: the leader and its parallel workers. */
  processes: z.number(),
  /**
   * Scans of it in the range: a session that scans the table again starts a new one (the scan map
   * keys a scan by process and relation, so they share the row and their bytes add up).
   */
  executions: z.number(),
  /** Blocks the scan map saw it advance in the range × block size. */
  bytes: z.number(),
  /** First to last instant the scan map saw it in the range, ms. */
  durationMs: z.number(),
  /** bytes / duration, bytes per second; null when the duration is 0. */
  bytesPerSecond: z.number().nullable(),
});
export type CompareScan = z.infer<typeof compareScanSchema>;

export const COMPARE_FIGURE_KEYS = [
  'bytesPerRead',
  'blocksPerRead',
  'readsInFlightMean',
  'readsInFlightPeak',
  'ioWorkerBusyShare',
  'readThroughput',
] as const;
export type CompareFigureKey = (typeof COMPARE_FIGURE_KEYS)[number];

export const compareSideSchema = z.object({
  targetId: z.string(),
  from: z.number(),
  to: z.number(),
  /** Target name and range, e.g. "reporting, 02:10:00–02:25:00 (15 min)". */
  label: z.string(),
  targetName: z.string(),
  /** server_version, e.g. "18.4"; null when the server was never read. */
  serverVersion: z.string().nullable(),
  versionNum: z.number().nullable(),
  ioMethod: z.string().nullable(),
  /** Figures this version cannot report, each with why (e.g. bytes per read before 18). */
  unavailable: z.array(z.object({ figure: z.enum(COMPARE_FIGURE_KEYS), reason: z.string() })),
  /** Fast tick (pg_aios, wait events) and stat tick (pg_stat_io), samples per second. */
  sampleRateHz: z.number(),
  statRateHz: z.number(),
  /** Frames and pg_stat_io reads in the range: 0 frames means nothing was recorded there. */
  frames: z.number(),
  statReads: z.number(),
  figures: z.record(z.enum(COMPARE_FIGURE_KEYS), compareFigureSchema),
  /** Most common AIO wait events, most common first. */
  waits: z.array(compareWaitSchema),
  /** Relation scans, largest first; null with scansReason when the range is too long for raw frames. */
  scans: z.array(compareScanSchema).nullable(),
  scansReason: z.string().nullable(),
  settings: z.array(serverSettingSchema),
  /**
   * The settings are the target's at the range's start; null when nothing changed them during the
   * range, else what did (a restart, a settings change) and when.
   */
  settingsCaveat: z.string().nullable(),
});
export type CompareSide = z.infer<typeof compareSideSchema>;

/** A setting whose value differs between the sides (display as PostgreSQL shows it; null: absent). */
export const settingDifferenceSchema = z.object({
  name: z.string(),
  a: z.string().nullable(),
  b: z.string().nullable(),
});
export type SettingDifference = z.infer<typeof settingDifferenceSchema>;

/** GET /api/compare */
export const compareResultSchema = z.object({
  a: compareSideSchema,
  b: compareSideSchema,
  settingsDiffer: z.array(settingDifferenceSchema),
  /** How A differs from B, in plain words; "no difference that matters" when none passes the thresholds. */
  sentence: z.string(),
  /** The parts the sentence is made of, most important first. */
  differences: z.array(z.string()),
});
export type CompareResult = z.infer<typeof compareResultSchema>;
