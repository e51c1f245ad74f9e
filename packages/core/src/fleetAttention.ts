import type { AttentionKind, AttentionReason, Capabilities, TargetStatus } from '@aioscope/spec';
import { formatBytes } from './format.ts';
import type { WorkerVerdict } from './saturation.ts';

/**
 * "Needs attention" for the fleet overview: why one server should be looked at before another.
 * Every reason has a weight, heavier for the more serious kinds, so the sum sorts the rows and a
 * refused server is above any live one however many lesser reasons that one has.
 */
export const ATTENTION_WEIGHTS: Record<AttentionKind, number> = {
  refused: 64,
  disconnected: 32,
  stale: 16,
  // Above what it hides: without pg_read_all_stats neither saturation nor reads in flight can show.
  missingPrivileges: 8,
  workersSaturated: 4,
  readsNotCombining: 2,
  auditFailed: 1,
};

/** A live target with no frame for this long is stale (its sampler hangs or the server stalls). */
export const STALE_AFTER_MS = 5_000;
/** Bulk reads (sequential scans) averaging under this share of io_combine_limit are not combined. */
export const NOT_COMBINED_SHARE = 0.5;
/** …when at least this many bulk reads a second happen: a few small reads say nothing. */
export const NOT_COMBINED_MIN_READS_PER_SECOND = 10;

/** pg_stat_io bulkread counters summed over a recent window. */
export interface BulkReads {
  reads: number;
  bytes: number;
  seconds: number;
}

export interface AttentionInput {
  status: TargetStatus;
  /** What the role may read (null until the first settings read). */
  capabilities: Capabilities | null;
  /** aioscope's clock now, and when it last received a frame (not the server's clock: skew). */
  now: number;
  lastFrameReceivedAt: number | null;
  workers: WorkerVerdict;
  bulkReads: BulkReads;
  ioCombineLimitBytes: number | null;
  /** Audit findings at level warn; null before the first audit. */
  auditWarnings: number | null;
}

/** Whole kilobytes in plain text: a sentence of the overview. */
const kib = (bytes: number): string => formatBytes(bytes, 0, { space: ' ', from: 'kB', upTo: 'kB' });

/**
 * Sequential scans read far less per read than io_combine_limit allows. The same rule as the
 * AioscopeReadsNotCombined alert (deploy/prometheus), so the page and the pager agree.
 */
export function readsNotCombining(bulk: BulkReads, ioCombineLimitBytes: number | null): string | null {
  if (ioCombineLimitBytes === null || bulk.seconds <= 0 || bulk.reads <= 0) return null;
  if (bulk.reads / bulk.seconds < NOT_COMBINED_MIN_READS_PER_SECOND) return null;
  const perRead = bulk.bytes / bulk.reads;
  if (perRead >= NOT_COMBINED_SHARE * ioCombineLimitBytes) return null;
  return `sequential scans read ${kib(perRead)} per read, io_combine_limit is ${kib(ioCombineLimitBytes)} (pg_stat_io bulkread, last ${Math.round(bulk.seconds)} s)`;
}

/**
 * What the role cannot read, with the GRANT that fixes it; null when it reads everything. The same
 * condition as the dashboard's banner and the AioscopeMissingPrivileges alert
 * (aioscope_role_privilege == 0), so the overview does not call such a server healthy.
 */
export function missingPrivileges(capabilities: Capabilities | null): string | null {
  if (capabilities === null) return null;
  const missing: string[] = [];
  if (capabilities.hasPgAios && !capabilities.canReadPgAios) missing.push('pg_aios');
  if (!capabilities.canSeeAllActivity) missing.push("other sessions' wait events");
  if (missing.length === 0) return null;
  return `the role cannot read ${missing.join(' or ')}: GRANT pg_read_all_stats (or pg_monitor) to it`;
}

/** The reasons, most serious first, and their score (0: nothing to look at). */
export function fleetAttention(input: AttentionInput): { score: number; reasons: AttentionReason[] } {
  const reasons: AttentionReason[] = [];
  const { status } = input;
  const since = Math.round((input.now - status.since) / 1000);
  if (status.state === 'error') {
    reasons.push({ kind: 'refused', message: status.message ?? 'refused' });
  } else if (
    status.state === 'reconnecting' ||
    (status.state === 'connecting' && input.now - status.since > STALE_AFTER_MS)
  ) {
    reasons.push({ kind: 'disconnected', message: `${status.state} for ${since} s: ${status.message ?? 'no answer'}` });
  } else if (status.state === 'live') {
    const age = input.lastFrameReceivedAt === null ? null : input.now - input.lastFrameReceivedAt;
    if (age !== null && age > STALE_AFTER_MS) {
      reasons.push({ kind: 'stale', message: `no sample for ${Math.round(age / 1000)} s` });
    }
  }
  const privileges = missingPrivileges(input.capabilities);
  if (privileges !== null) reasons.push({ kind: 'missingPrivileges', message: privileges });
  if (input.workers.level === 'saturated') {
    const figure = input.workers.evidence[0];
    reasons.push({
      kind: 'workersSaturated',
      message: figure === undefined ? input.workers.summary : `${input.workers.summary} (${figure})`,
    });
  }
  const combining = readsNotCombining(input.bulkReads, input.ioCombineLimitBytes);
  if (combining !== null) reasons.push({ kind: 'readsNotCombining', message: combining });
  if (input.auditWarnings !== null && input.auditWarnings > 0) {
    reasons.push({
      kind: 'auditFailed',
      message: `${input.auditWarnings} settings audit ${input.auditWarnings === 1 ? 'rule warns' : 'rules warn'}`,
    });
  }
  return { score: reasons.reduce((sum, reason) => sum + ATTENTION_WEIGHTS[reason.kind], 0), reasons };
}
