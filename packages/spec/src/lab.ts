import { z } from 'zod';

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

export const labVariantSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[A-Za-z0-9 _.=/-]+$/, 'variant names are letters, digits, spaces and _ . = / -'),
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

export interface LabRun {
  variant: string;
  round: number;
  startedAt: number;
  ioMethod: string | null;
  cacheState: CacheState;
  /** Share of the table's pages in the OS page cache just before the scan (fincore); null when it cannot be read. */
  osResidencyBefore: number | null;
  executionMs: number;
  sharedReadBlocks: number;
  sharedHitBlocks: number;
  /** EXPLAIN's I/O read time (track_io_timing): time the backend waited for reads. */
  ioReadTimeMs: number | null;
  /** pg_stat_get_backend_io(run backend) delta for the run. */
  reads: number | null;
  readBytes: number | null;
  bytesPerRead: number | null;
}

export interface LabVariantSummary {
  variant: string;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** median / baseline median. */
  ratioToBaseline: number;
  medianBytesPerRead: number | null;
  medianIoReadTimeMs: number | null;
}

export type LabStatus = 'running' | 'done' | 'failed';

export interface LabExperiment {
  id: string;
  targetId: string;
  targetName: string;
  createdAt: number;
  finishedAt: number | null;
  status: LabStatus;
  error: string | null;
  definition: LabExperimentDefinition;
  /** Runs planned in execution order: interleaved, A B C A B C … */
  plannedRuns: number;
  runs: LabRun[];
  summary: LabVariantSummary[];
  /** Caveats that change how to read the numbers, e.g. OS cache warm, fewer than 3 rounds. */
  notes: string[];
}

export interface LabExperimentListItem {
  id: string;
  createdAt: number;
  status: LabStatus;
  cacheState: CacheState;
  variants: string[];
  rounds: number;
}
