import { z } from 'zod';
import { explainIoReportSchema } from './explainIo.ts';

/** The scan lab's contract: an experiment definition in, runs and medians out. */

export const LAB_MAX_TABLE_MB = 4096;
export const LAB_MAX_ROUNDS = 20;
export const LAB_MAX_VARIANTS = 8;

export const CACHE_STATES = ['cold', 'shared-buffers-cold', 'warm'] as const;
export type CacheState = (typeof CACHE_STATES)[number];

export const IO_METHODS = ['sync', 'worker', 'io_uring'] as const;

/** Session settings a variant may SET; each is a plain integer, so nothing reaches SQL as text. */
export const labSessionSettingsSchema = z
  .object({
    effective_io_concurrency: z.number().int().min(0).max(1000).optional(),
    maintenance_io_concurrency: z.number().int().min(0).max(1000).optional(),
    /** Blocks (8 kB each): 1 disables combining, 16 = 128 kB. */
    io_combine_limit: z.number().int().min(1).max(128).optional(),
  })
  .strict();

/** Server settings: applied by restarting the embedded server, never a user's. */
export const labServerSettingsSchema = z
  .object({
    io_method: z.enum(IO_METHODS).optional(),
    io_workers: z.number().int().min(1).max(32).optional(),
  })
  .strict();

/** Variant names are shown and exported, never sent to SQL; "," joins the settings of one variant. */
export const LAB_VARIANT_NAME = /^[A-Za-z0-9 _.,=/-]+$/;
/** Long enough for four settings in one variant: "io_method=worker,io_workers=8,eic=64,icl=16". */
export const LAB_MAX_VARIANT_NAME = 80;

export const labVariantSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(LAB_MAX_VARIANT_NAME)
      .regex(LAB_VARIANT_NAME, 'variant names are letters, digits, spaces and _ . , = / -'),
    session: labSessionSettingsSchema.default({}),
    server: labServerSettingsSchema.default({}),
  })
  .strict();

export const labExperimentSchema = z
  .object({
    tableMb: z.number().int().min(16).max(LAB_MAX_TABLE_MB),
    cacheState: z.enum(CACHE_STATES),
    rounds: z.number().int().min(1).max(LAB_MAX_ROUNDS).default(5),
    variants: z
      .array(labVariantSchema)
      .min(1)
      .max(LAB_MAX_VARIANTS)
      .refine((variants) => new Set(variants.map((v) => v.name)).size === variants.length, 'variant names must differ'),
    /** Index of the variant the ratios are computed against. */
    baseline: z.number().int().min(0).default(0),
    /**
     * Direct I/O (PostgreSQL's developer setting debug_io_direct = data, embedded server only): the
     * server is restarted with it for the experiment, so every read goes to the device and none is
     * served by the OS page cache. A flag rather than a cache state: what is evicted before each run
     * and how reads reach the disk are separate questions (warm still means shared buffers hit). Absent means off.
     */
    directIo: z.boolean().optional(),
    /** On a server that is not the embedded one: its display name, typed by the user to confirm. */
    confirmTarget: z.string().max(200).optional(),
  })
  .strict()
  .refine((experiment) => experiment.baseline < experiment.variants.length, {
    message: 'baseline must be the index of a variant',
    path: ['baseline'],
  });

export type LabVariant = z.infer<typeof labVariantSchema>;
export type LabExperimentDefinition = z.infer<typeof labExperimentSchema>;
export type LabExperimentInput = z.input<typeof labExperimentSchema>;

/*
 * What the lab stores and serves. These schemas read the JSON files in the data folder and the
 * REST answers in the browser, so unknown keys are dropped rather than refused: a file written by
 * a newer aioscope still reads.
 */

export const labRunSchema = z.object({
  variant: z.string(),
  round: z.number().int(),
  /** Epoch milliseconds when the EXPLAIN was sent. */
  startedAt: z.number(),
  ioMethod: z.string().nullable(),
  cacheState: z.enum(CACHE_STATES),
  /** Share of the table's pages in the OS page cache just before the scan (fincore); null when it cannot be read. */
  osResidencyBefore: z.number().nullable(),
  /** The server's debug_io_direct during the run ('' = off, 'data' = direct I/O); absent in files written before it was recorded. */
  ioDirect: z.string().nullable().optional(),
  executionMs: z.number(),
  sharedReadBlocks: z.number(),
  sharedHitBlocks: z.number(),
  /** EXPLAIN's I/O read time (track_io_timing): time the backend waited for reads. */
  ioReadTimeMs: z.number().nullable(),
  /** pg_stat_get_backend_io(run backend) delta for the run. */
  reads: z.number().nullable(),
  readBytes: z.number().nullable(),
  bytesPerRead: z.number().nullable(),
  /** EXPLAIN IO's per-node figures (PostgreSQL 19), or that the server cannot report them; absent in files written before. */
  explainIo: explainIoReportSchema.optional(),
});
export type LabRun = z.infer<typeof labRunSchema>;

export const labVariantSummarySchema = z.object({
  variant: z.string(),
  runs: z.number().int(),
  medianMs: z.number(),
  minMs: z.number(),
  maxMs: z.number(),
  /** median / baseline median. */
  ratioToBaseline: z.number(),
  medianBytesPerRead: z.number().nullable(),
  medianIoReadTimeMs: z.number().nullable(),
});
export type LabVariantSummary = z.infer<typeof labVariantSummarySchema>;

export const LAB_STATUSES = ['running', 'done', 'failed', 'cancelled'] as const;
export const labStatusSchema = z.enum(LAB_STATUSES);
export type LabStatus = z.infer<typeof labStatusSchema>;

/** Experiment ids: 12 lowercase letters or digits, also the stored file's name. */
export const LAB_EXPERIMENT_ID = /^[a-z0-9]{12}$/;

export const labExperimentRecordSchema = z.object({
  id: z.string().regex(LAB_EXPERIMENT_ID),
  targetId: z.string(),
  targetName: z.string(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  status: labStatusSchema,
  /** Why a failed experiment failed. */
  error: z.string().nullable(),
  /** Why a cancelled experiment was cancelled, and by whom (absent in files written before cancel existed). */
  cancelReason: z.string().nullable().default(null),
  definition: labExperimentSchema,
  /** Runs planned in execution order: interleaved, A B C A B C … */
  plannedRuns: z.number().int(),
  runs: z.array(labRunSchema),
  summary: z.array(labVariantSummarySchema),
  /** Caveats that change how to read the numbers, e.g. OS cache warm, fewer than 3 rounds. */
  notes: z.array(z.string()),
});
export type LabExperiment = z.infer<typeof labExperimentRecordSchema>;

export const labExperimentListItemSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  status: labStatusSchema,
  cacheState: z.enum(CACHE_STATES),
  directIo: z.boolean().default(false),
  variants: z.array(z.string()),
  rounds: z.number().int(),
});
export type LabExperimentListItem = z.infer<typeof labExperimentListItemSchema>;
export const labExperimentListSchema = z.array(labExperimentListItemSchema);

/** The experiment that holds the lab now, for a banner: it may have restarted the embedded server. */
export const labActivitySchema = z.object({
  id: z.string(),
  /** Server settings the embedded server runs with for the experiment (io_method, io_workers, debug_io_direct), if any differ. */
  serverSettings: z.record(z.string(), z.string()),
  /** The experiment has ended and the lab is putting the server's own settings back. */
  restoring: z.boolean(),
});
export type LabActivity = z.infer<typeof labActivitySchema>;

/** GET /api/lab: whether this process offers the lab, and on what. */
export const labInfoSchema = z.object({
  embedded: z.boolean(),
  /** Why the lab is off here, with how to turn it on; absent when it is on. */
  unavailable: z.string().optional(),
  active: labActivitySchema.nullable().default(null),
  /**
   * The one server the lab works on (the first one); absent when this process offers no lab.
   * Another server's dashboard names it rather than offering a lab that would run elsewhere.
   */
  target: z.object({ id: z.string(), name: z.string() }).optional(),
});
export type LabInfo = z.infer<typeof labInfoSchema>;

/** POST /api/lab/experiments answers 202 with the new experiment's id. */
export const labStartedSchema = z.object({ id: z.string().regex(LAB_EXPERIMENT_ID) });
