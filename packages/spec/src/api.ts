import { z } from 'zod';

/** REST payloads that are not part of the live stream. */

export const backendIoRowSchema = z.object({
  object: z.string(),
  context: z.string(),
  reads: z.number(),
  readBytes: z.number(),
  readTimeMs: z.number(),
});

/** GET /api/targets/:id/processes/:pid */
export const processDetailSchema = z.object({
  pid: z.number(),
  backendType: z.string(),
  /** Full query text from pg_stat_activity (the live table carries 200 characters). */
  query: z.string().nullable(),
  /**
   * pg_stat_get_backend_io(pid) rows with reads (PostgreSQL 18+). Like pg_stat_io, a backend adds
   * its counts when a statement ends, so a running scan does not show here yet.
   */
  backendIo: z.array(backendIoRowSchema).nullable(),
  /** Why backendIo is null, in words. */
  backendIoUnavailable: z.string().nullable(),
});
export type ProcessDetail = z.infer<typeof processDetailSchema>;

/** Every 4xx/5xx body. */
export const apiErrorSchema = z.object({
  error: z.string(),
});
export type ApiError = z.infer<typeof apiErrorSchema>;
