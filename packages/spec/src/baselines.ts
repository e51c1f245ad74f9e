import { z } from 'zod';

/* ---------------- Baselines ----------------
 * A baseline is a named range of a target, marked to be kept: a recording file of that range
 * written into the history store when it is marked, so retention never removes it, it exports as
 * exactly that file, and opening it makes a target like any opened recording file.
 */

/** Longest name a baseline may have; a name is a label, not a description. */
export const MAX_BASELINE_NAME_LENGTH = 120;

/** C0 and C1 controls, and the bidirectional embeddings, overrides and isolates. */
const NAME_CONTROL_CHARACTERS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** POST /api/targets/:id/baselines: the range [from, to) and its name (unique per target). */
export const newBaselineSchema = z
  .object({
    name: z
      .string({ error: 'name must be text' })
      .trim()
      .min(1, 'name must not be empty')
      .max(MAX_BASELINE_NAME_LENGTH, `name is longer than ${MAX_BASELINE_NAME_LENGTH} characters`)
      // A name is shown in lists, file names and logs: a line break, an escape sequence or a
      // direction override there would forge or hide what is around it.
      .refine((name) => !NAME_CONTROL_CHARACTERS.test(name), 'name must not contain control characters'),
    from: z
      .number({ error: 'from must be a number (epoch ms)' })
      .int('from must be whole ms')
      .min(0, 'from must not be negative'),
    to: z
      .number({ error: 'to must be a number (epoch ms)' })
      .int('to must be whole ms')
      .min(0, 'to must not be negative'),
  })
  .refine((range) => range.from < range.to, { message: 'from must be before to', path: ['from'] });
export type NewBaseline = z.infer<typeof newBaselineSchema>;

/** One kept baseline, as GET /api/baselines lists it (its file is GET /api/baselines/:id/export). */
export const baselineSchema = z.object({
  id: z.string(),
  targetId: z.string(),
  /** The target's name when it was marked (the target may be gone since). */
  targetName: z.string(),
  name: z.string(),
  from: z.number(),
  to: z.number(),
  /** Size of its recording file. */
  bytes: z.number(),
  /** The authenticated user who marked it; null where access names nobody (loopback, a token). */
  createdBy: z.string().nullable(),
  createdAt: z.number(),
});
export type Baseline = z.infer<typeof baselineSchema>;

export const baselineListSchema = z.object({
  baselines: z.array(baselineSchema),
  /** Why none can be kept or read here (recording off, the store paused); absent when they can. */
  unavailable: z.string().optional(),
});
export type BaselineList = z.infer<typeof baselineListSchema>;
