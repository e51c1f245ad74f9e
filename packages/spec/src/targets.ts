import { z } from 'zod';

/** What the browser may know about a monitored server. Never a connection string or a password. */

/** 'recording': a recording file opened in memory (`open FILE`, a dropped file): history only, no live stream. */
export const TARGET_KINDS = ['embedded', 'external', 'recording'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const CONNECTION_STATES = ['connecting', 'live', 'reconnecting', 'error'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

export const targetStatusSchema = z.object({
  state: z.enum(CONNECTION_STATES),
  /** Human-readable reason for the state, e.g. the error that ended the last sample. */
  message: z.string().nullable(),
  /** Epoch ms (aioscope's clock) when the state began. */
  since: z.number(),
  /** Server clock of the newest live frame, epoch ms. */
  lastFrameAt: z.number().nullable(),
  skippedTicks: z.number(),
});
export type TargetStatus = z.infer<typeof targetStatusSchema>;

export const serverSettingSchema = z.object({
  name: z.string(),
  /** Value with its unit as PostgreSQL shows it, e.g. "128kB", "worker". */
  display: z.string(),
  /** Numeric value in base units (bytes for sizes), when numeric. */
  value: z.number().nullable(),
  source: z.string(),
  sourcefile: z.string().nullable(),
});
export type ServerSetting = z.infer<typeof serverSettingSchema>;

export const serverInfoSchema = z.object({
  version: z.string(),
  versionNum: z.number(),
  ioMethod: z.string().nullable(),
  ioCombineLimitBytes: z.number().nullable(),
  ioMaxCombineLimitBytes: z.number().nullable(),
  blockSize: z.number(),
  /**
   * When the server (postmaster) started, epoch ms: a change means it restarted, even on the same
   * version. null when not read (recordings made before it was).
   */
  startedAt: z.number().nullable().default(null),
  settings: z.array(serverSettingSchema),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const capabilitiesSchema = z.object({
  /** pg_aios exists (PostgreSQL 18+). */
  hasPgAios: z.boolean(),
  /** The role may execute pg_get_aios() (superuser or pg_read_all_stats). */
  canReadPgAios: z.boolean(),
  /** pg_stat_io has *_bytes columns (18+); older servers use op_bytes. */
  statIoHasBytes: z.boolean(),
  /** The role sees other sessions' wait events (pg_read_all_stats). */
  canSeeAllActivity: z.boolean(),
});
export type Capabilities = z.infer<typeof capabilitiesSchema>;

/** GET /api/targets/:id, and each item of GET /api/targets. */
export const targetSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(TARGET_KINDS),
  status: targetStatusSchema,
  server: serverInfoSchema.nullable(),
  capabilities: capabilitiesSchema.nullable(),
  /** Fast tick rate (pg_aios and wait events), samples per second. */
  sampleRateHz: z.number(),
  /** Stat tick rate (pg_stat_io), samples per second. */
  statRateHz: z.number(),
  /** Whether a demo workload is running on this target. */
  demoWorkload: z.boolean(),
  /**
   * Set for kind 'recording' (null for a live target): the range the file holds and its name. Such
   * a target has no live stream; its past is read through the history routes.
   */
  recording: z.object({ from: z.number(), to: z.number(), fileName: z.string() }).nullable(),
  /**
   * When the target was removed from the targets file (epoch ms, aioscope's clock); absent while it
   * is watched. Such a target has no live stream; what was recorded of it stays readable through
   * the history routes, and its summary is the last one its monitor gave.
   */
  unwatchedSince: z.number().optional(),
  /**
   * The replica that samples it (--replica-name), so a page opens its live socket there
   * (`?replica=NAME`, deploy/team/nginx.conf); absent for an unnamed replica.
   */
  replica: z.string().max(32).optional(),
});
export type TargetSummary = z.infer<typeof targetSummarySchema>;

/** GET /api/targets */
export const targetListSchema = z.array(targetSummarySchema);
