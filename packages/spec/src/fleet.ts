import { z } from 'zod';
import { rollupPointSchema } from './history.ts';
import { targetSummarySchema } from './targets.ts';

/**
 * The fleet contract: what the overview page (the landing page when aioscope watches more than one
 * server) shows per server, and how a targets file's state is reported.
 */

/** Minutes of roll-ups each overview row carries for its sparklines. */
export const OVERVIEW_MINUTES = 10;
/**
 * The sparklines' step. A sparkline is 120 px wide, so 10 minutes of 10 s steps is two pixels a
 * step. 1 s steps drew nothing more and made a full row about 225 kB, against about 35 kB now,
 * refreshed every 2 s per open page.
 */
export const OVERVIEW_STEP_MS = 10_000;

/** Why a server is near the top of "needs attention", most serious first. */
export const ATTENTION_KINDS = [
  'refused',
  'disconnected',
  'stale',
  'missingPrivileges',
  'workersSaturated',
  'readsNotCombining',
  'auditFailed',
] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

export const attentionReasonSchema = z.object({
  kind: z.enum(ATTENTION_KINDS),
  /** One line a person reads, with the figure behind it ("io workers busy in 94 % of samples"). */
  message: z.string(),
});
export type AttentionReason = z.infer<typeof attentionReasonSchema>;

export const overviewRowSchema = z.object({
  target: targetSummarySchema,
  /** From the targets file (env, cluster, …); empty when given with --db. */
  labels: z.record(z.string(), z.string()),
  /** Higher is worse; 0: nothing to look at. Sorts the overview. */
  attention: z.object({ score: z.number(), reasons: z.array(attentionReasonSchema) }),
  /**
   * The last OVERVIEW_MINUTES in OVERVIEW_STEP_MS roll-ups for the sparklines (reads in flight, bytes
   * per read, busy share). The newest step ends with the newest second completed (seconds are closed
   * about a second after they end, for late pg_stat_io deltas).
   */
  sparkline: z.object({ stepMs: z.number(), points: z.array(rollupPointSchema) }),
  /** Audit rules that warn or fail now; null until the first audit. */
  auditWarnings: z.number().nullable(),
  /** What sampling this server costs, and the rate it achieves. */
  sampling: z.object({
    /**
     * Achieved fast-tick rate over the last 10 s, samples per second; null when this replica cannot
     * know it (another replica samples the server and cannot be asked: the live adapter is down).
     */
    achievedHz: z.number().nullable(),
    /** The rate asked for: a number, or 'auto' (the cost budget picks it). */
    requested: z.union([z.number(), z.literal('auto')]),
    /** Database-side time of sampling over wall time, as a share of one core; null until measured. */
    dbCostShare: z.number().nullable(),
  }),
});
export type OverviewRow = z.infer<typeof overviewRowSchema>;

/** The targets file in force, and why the last reload was refused (the old set keeps running). */
export const targetsFileStateSchema = z.object({
  path: z.string(),
  loadedAt: z.number(),
  /** "targets.yml:12: target \"db2\": unknown key \"hots\"", or null when the last read was accepted. */
  rejected: z.string().nullable(),
  rejectedAt: z.number().nullable(),
});
export type TargetsFileState = z.infer<typeof targetsFileStateSchema>;

/** GET /api/overview */
export const overviewSchema = z.object({
  rows: z.array(overviewRowSchema),
  targetsFile: targetsFileStateSchema.nullable(),
});
export type Overview = z.infer<typeof overviewSchema>;
