/**
 * The rules a target monitor follows, free of I/O and clocks: reconnection backoff, throttles,
 * connection-state transitions, when settings are re-read, and which database errors mean the
 * connection itself is gone. The server's sampler modules call these with the time passed in.
 */
import type { Capabilities, ConnectionState, ServerInfo, TargetStatus } from '@aioscope/spec';

export interface BackoffPolicy {
  firstMs: number;
  maxMs: number;
}

export interface BackoffState {
  /** Monotonic ms before which no new attempt is made. */
  nextAttemptAt: number;
  /** The wait after the next failure. */
  delayMs: number;
}

/** Reconnection backoff: doubles from the first to the last value; kept short so the view resumes within ~1 s. */
export const RECONNECT_BACKOFF: BackoffPolicy = { firstMs: 100, maxMs: 1_000 };

export function initialBackoff(policy: BackoffPolicy): BackoffState {
  return { nextAttemptAt: -Infinity, delayMs: policy.firstMs };
}

export function backoffAfterFailure(state: BackoffState, now: number, policy: BackoffPolicy): BackoffState {
  return { nextAttemptAt: now + state.delayMs, delayMs: Math.min(policy.maxMs, state.delayMs * 2) };
}

export function attemptDue(state: BackoffState, now: number): boolean {
  return now >= state.nextAttemptAt;
}

/** Whether something last done at `lastAt` is due again at `now` (both on one clock). */
export function isDue(now: number, lastAt: number, intervalMs: number): boolean {
  return now - lastAt >= intervalMs;
}

/**
 * True when an error means the session is unusable (reconnect), false when only the statement
 * failed (a permission, a syntax, a cancelled query on a healthy session).
 */
export function isConnectionLevelError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // No SQLSTATE: network errors (ECONNRESET, EPIPE), client timeouts, ended connections.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  // SQLSTATE classes 08 (connection), 57P (operator intervention: shutdown), 53 (resources).
  return /^(08|57P|53)/.test(code);
}

/** The SQLSTATE of a revoked privilege: degrade and re-read capabilities, never disconnect. */
export function isPrivilegeError(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '42501';
}

/** What happened to a monitor's sampling, as far as its connection state is concerned. */
export type MonitorOutcome =
  /** A frame was built; `note` says what is missing (no pg_aios, no privilege) or null. */
  | { kind: 'sampled'; note: string | null }
  /** A sample or a connection attempt failed; the next tick tries again. */
  | { kind: 'failed'; reason: string }
  /** The server answered but cannot be watched (its version): nothing to retry until it changes. */
  | { kind: 'refused'; reason: string }
  /** A privilege went away mid-run: still live, with a note. */
  | { kind: 'privilegeLost'; reason: string };

/**
 * The connection state after an outcome. Returns the same object when nothing visible changed, so
 * callers can tell a transition (and tell viewers) by identity.
 */
export function nextStatus(status: TargetStatus, outcome: MonitorOutcome, now: number): TargetStatus {
  let state: ConnectionState;
  let message: string | null;
  switch (outcome.kind) {
    case 'sampled':
      state = 'live';
      message = outcome.note;
      break;
    case 'privilegeLost':
      state = 'live';
      message = outcome.reason;
      break;
    case 'refused':
      state = 'error';
      message = outcome.reason;
      break;
    case 'failed':
      // Until a first frame, a failure is still part of connecting; after it, a reconnection.
      state = status.state === 'connecting' ? 'connecting' : 'reconnecting';
      message = outcome.reason;
      break;
  }
  if (status.state === state && status.message === message) return status;
  return { ...status, state, message, since: now };
}

/** Settings and privileges are re-read this often, and at once after a permission error. */
export const SETTINGS_REFRESH_MS = 30_000;
/** Privileges are re-read this often while pg_aios is not readable, so a GRANT shows within seconds. */
export const DEGRADED_REFRESH_MS = 5_000;

export function settingsRefreshIntervalMs(capabilities: Capabilities | null): number {
  return capabilities?.hasPgAios === true && !capabilities.canReadPgAios ? DEGRADED_REFRESH_MS : SETTINGS_REFRESH_MS;
}

/** What a live view lacks on this server and role, in one sentence; null when nothing is missing. */
export function degradedMessage(server: ServerInfo | null, capabilities: Capabilities | null): string | null {
  if (capabilities === null) return null;
  if (!capabilities.hasPgAios) {
    return `PostgreSQL ${server?.version ?? ''} has no asynchronous I/O (18+): only pg_stat_io is shown.`;
  }
  if (!capabilities.canReadPgAios) {
    return 'pg_aios is not readable by this role: GRANT pg_read_all_stats (or pg_monitor) to it.';
  }
  return null;
}
