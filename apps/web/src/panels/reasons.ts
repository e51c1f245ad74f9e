import type { LiveFrame, TargetSummary } from '@aioscope/spec';

/**
 * Why nothing is read from this target at all, led by what is missing ("Not sampled", "Not
 * audited"): a server that answered and was refused (older than 16, …) is never sampled, and its
 * panels must not wait for a first sample that will not come. Null while it is, or may soon be.
 */
export function refusedReason(target: TargetSummary | undefined, what: string): string | null {
  if (target === undefined || target.kind === 'recording' || target.status.state !== 'error') return null;
  // Dropped from the targets file: its past is shown, and its status is only the last one known.
  if (target.unwatchedSince !== undefined) return null;
  return `${what}: ${target.status.message ?? 'aioscope refused this server'}`;
}

/** Why pg_aios panels are empty, in words a DBA can act on; null when pg_aios is being read. */
export function aiosUnavailableReason(
  target: TargetSummary | undefined,
  latest: LiveFrame | boolean | undefined,
): string | null {
  const refused = refusedReason(target, 'Not sampled');
  if (refused !== null) return refused;
  const capabilities = target?.capabilities;
  if (target === undefined || capabilities === null || capabilities === undefined)
    return 'Waiting for the first sample …';
  if (!capabilities.hasPgAios) {
    return `PostgreSQL ${target.server?.version ?? ''} has no asynchronous I/O: pg_aios exists from PostgreSQL 18. pg_stat_io figures still work.`;
  }
  if (!capabilities.canReadPgAios) {
    return 'This role cannot read pg_aios. Fix: GRANT pg_read_all_stats TO <role>; (or GRANT pg_monitor). Everything else still works.';
  }
  if (latest === undefined || latest === false) return 'Waiting for the first sample …';
  return null;
}
