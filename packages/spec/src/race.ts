import { z } from 'zod';
import { liveFrameSchema } from './frames.ts';
import { labExperimentRecordSchema, labExperimentSchema, labRunSchema, type LabExperimentInput } from './lab.ts';

/**
 * The race contract: a lab experiment whose runs are each captured at RACE_CAPTURE_HZ while they
 * scan, so the variants can be replayed side by side. The lab decides what runs and measures it;
 * a race adds the frames.
 */

/** Capture rate of a race run: fast enough that a 300 ms scan is ~30 frames. */
export const RACE_CAPTURE_HZ = 100;
/** A run is captured for at most this long (a 4 GB cold scan on a slow disk), so memory stays bounded. */
export const RACE_MAX_CAPTURE_MS = 120_000;
/** Fewer frames than this cannot be watched as a race: the view says so instead of replaying. */
export const RACE_MIN_FRAMES = 5;
/** Races kept in memory (each holds its runs' frames); the oldest is forgotten first. */
export const RACE_MAX_KEPT = 4;
/** Ids of forgotten races remembered, so a link to one says "expired" rather than "never raced". */
export const RACE_MAX_EXPIRED_IDS = 256;

export const RACE_PRESETS = ['read-combining'] as const;
export type RacePreset = (typeof RACE_PRESETS)[number];

/**
 * "Show read combining": io_combine_limit 1 vs 16 blocks, cold, 3 rounds. At 256 MB (the lab's
 * default size, so the table is often there already) a cold scan at 16 blocks took 583 ms and at
 * 1 block 646 ms on the development machine (io_method worker, 2 cores): long enough to watch at
 * 100 Hz (~60 frames a lane), twice the 300 ms floor.
 */
export const READ_COMBINING_RACE: LabExperimentInput = {
  tableMb: 256,
  cacheState: 'cold',
  rounds: 3,
  variants: [
    { name: 'icl=1', session: { io_combine_limit: 1 } },
    { name: 'icl=16', session: { io_combine_limit: 16 } },
  ],
  baseline: 0,
};

/** POST /api/race: a preset, or any lab experiment definition. */
export const raceStartSchema = z.union([
  // confirmTarget: on a server other than the embedded one, the lab's confirmation, as for any experiment.
  z.object({ preset: z.enum(RACE_PRESETS), confirmTarget: z.string().max(200).optional() }).strict(),
  labExperimentSchema,
]);
export type RaceStart = z.input<typeof raceStartSchema>;

/** One captured run: its frames (only the run's own backend), its clock, and the lab's figures for it. */
export const raceLaneSchema = z.object({
  variant: z.string(),
  round: z.number().int(),
  /** The run's backend. */
  pid: z.number(),
  /** Server clock just before the scan was sent and just after it returned, epoch ms. */
  startT: z.number(),
  endT: z.number(),
  /** Every captured frame, each with the scan map (filtered to the run's backend). */
  frames: z.array(liveFrameSchema),
  /** The lab's measurement of this run; null when the run failed or was cancelled before it ended. */
  run: labRunSchema.nullable(),
  /** Distinct reads the capture saw (frames' newReads). */
  readsSeen: z.number(),
  /** readsSeen / the reads pg_stat_get_backend_io counted for the run; null when unknown. */
  seenShare: z.number().nullable(),
  /** Blocks per read: shared read blocks (EXPLAIN) / reads (pg_stat_get_backend_io). */
  blocksPerRead: z.number().nullable(),
  /** Why capturing this run stopped early or failed, when it did. */
  captureError: z.string().nullable(),
});
export type RaceLane = z.infer<typeof raceLaneSchema>;

/** GET /api/race/:id: the experiment (status, medians, notes) and, per variant, the chosen run's lane. */
export const raceSchema = z.object({
  id: z.string(),
  captureHz: z.number(),
  experiment: labExperimentRecordSchema,
  /**
   * One lane per variant that has a captured run, in the experiment's variant order: the run whose
   * time is nearest its variant's median, so the race shows a typical run, not the luckiest.
   */
  lanes: z.array(raceLaneSchema),
  /**
   * Whether this server holds the race's captures: kept; expired (newer races replaced them, the
   * newest RACE_MAX_KEPT are kept); none (never run as a race, or since aioscope restarted).
   */
  captures: z.enum(['kept', 'expired', 'none']),
});
export type Race = z.infer<typeof raceSchema>;

export const raceStartedSchema = z.object({ id: z.string() });
