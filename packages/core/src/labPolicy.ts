import type { LabExperimentDefinition } from '@aioscope/spec';

/**
 * Who may run what in the scan lab, as pure rules: the server side asks them, the browser uses
 * the same words. The lab writes a table and, on the embedded server, restarts it: a user's own
 * server is only ever written to when they said so twice (--allow-lab, then its name typed).
 */

export interface LabTargetFacts {
  /** The target is aioscope's own embedded server (the lab may restart it). */
  embedded: boolean;
  /** --allow-lab was given. */
  allowExternal: boolean;
  /** Display name, e.g. "app@db1:5432/prod"; what the user types to confirm. */
  targetName: string;
}

export interface LabRefusal {
  status: 400 | 403 | 409 | 429;
  error: string;
}

/** Direct I/O needs a restart with a developer setting: never done to a user's server. */
export const DIRECT_IO_EMBEDDED_ONLY =
  "direct I/O (debug_io_direct = data) restarts the server with a developer setting: only aioscope's embedded server is ever restarted";

/**
 * Why an experiment with direct I/O failed, in words: a filesystem without O_DIRECT answers
 * "Invalid argument" (EINVAL) when PostgreSQL opens a data file, at start-up or at the first read.
 */
export function describeDirectIoFailure(message: string, dataDir: string): string {
  if (/invalid argument|EINVAL/i.test(message)) {
    return `direct I/O is not supported by the filesystem of the data folder (${dataDir}): ${message}`;
  }
  return `with direct I/O (debug_io_direct = data): ${message}`;
}

/** Why the lab is off on this target (with how to turn it on), or null when it is on. */
export function labUnavailableReason(facts: LabTargetFacts): string | null {
  if (facts.embedded || facts.allowExternal) return null;
  return `The scan lab is off for ${facts.targetName}: it creates a table there. Start aioscope with --allow-lab to allow it.`;
}

/** Whether this experiment may run on this target, apart from rate and one-at-a-time. */
export function checkLabPermission(
  facts: LabTargetFacts,
  definition: Pick<LabExperimentDefinition, 'confirmTarget' | 'variants' | 'directIo'>,
): LabRefusal | null {
  if (facts.embedded) return null;
  const off = labUnavailableReason(facts);
  if (off !== null) return { status: 403, error: off };
  if (definition.directIo === true) return { status: 400, error: DIRECT_IO_EMBEDDED_ONLY };
  if (definition.confirmTarget !== facts.targetName) {
    return {
      status: 400,
      error: `confirm by sending confirmTarget = "${facts.targetName}" (the server the lab will write to)`,
    };
  }
  if (definition.variants.some((variant) => Object.keys(variant.server).length > 0)) {
    return {
      status: 400,
      error: 'io_method and io_workers variants restart the server: only the embedded server is ever restarted',
    };
  }
  return null;
}

export interface StartRateLimit {
  maxStarts: number;
  windowMs: number;
}

/** At most six starts a minute, on top of one experiment at a time: a stuck button or a script cannot hammer a server. */
export const LAB_START_RATE: StartRateLimit = { maxStarts: 6, windowMs: 60_000 };

export type StartAdmission =
  { admitted: true; starts: number[] } | { admitted: false; starts: number[]; retryAfterMs: number; error: string };

/**
 * A sliding window over the times of earlier starts. Returns the times to keep: the admitted start
 * is added, starts older than the window are dropped (so the list stays bounded by maxStarts).
 */
export function admitStart(previous: readonly number[], now: number, limit: StartRateLimit): StartAdmission {
  const starts = previous.filter((t) => now - t < limit.windowMs && t <= now);
  if (starts.length >= limit.maxStarts) {
    const oldest = Math.min(...starts);
    const retryAfterMs = oldest + limit.windowMs - now;
    return {
      admitted: false,
      starts,
      retryAfterMs,
      error: `at most ${limit.maxStarts} experiments a minute: try again in ${Math.ceil(retryAfterMs / 1000)} s`,
    };
  }
  return { admitted: true, starts: [...starts, now] };
}
