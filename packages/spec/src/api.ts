/** REST payloads that are not part of the live stream. */

/** GET /api/targets/:id/processes/:pid */
export interface ProcessDetail {
  pid: number;
  backendType: string;
  /** Full query text from pg_stat_activity (the live table carries 200 characters). */
  query: string | null;
  /**
   * pg_stat_get_backend_io(pid) rows with reads (PostgreSQL 18+). Like pg_stat_io, a backend adds
   * its counts when a statement ends, so a running scan does not show here yet.
   */
  backendIo: { object: string; context: string; reads: number; readBytes: number; readTimeMs: number }[] | null;
  /** Why backendIo is null, in words. */
  backendIoUnavailable: string | null;
}

/** Every 4xx/5xx body. */
export interface ApiError {
  error: string;
}
