import type { FastTickSample, ProcessDetails, ProcessDetailsQueryRow } from './fastTick.ts';
import { parseProcessDetails } from './fastTick.ts';
import { isDue } from './monitorRules.ts';

/**
 * Process details (names, query text) are read with the processes table, and sooner when a pid
 * appears or starts a new statement (so the scan map names what it runs), but at most this often.
 */
export const PROCESS_DETAILS_MIN_INTERVAL_MS = 100;
/** Details of a pid missing from the ticks are kept this long: a scan between two reads keeps its label. */
export const PROCESS_DETAILS_KEEP_MS = 5_000;

/** Process details as read, with the statement they were read for and when the pid was last in a tick. */
interface KnownProcess extends ProcessDetails {
  readAtQueryStart: number | null;
  seenAt: number;
}

/**
 * What the monitor knows of each process beyond the fast tick, and the rules for when that is
 * stale. Times are the server's clock of the samples (epoch ms); the reading itself is the
 * sampler's job.
 */
export class ProcessDetailsCache {
  private byPid = new Map<number, KnownProcess>();
  private readAt = -Infinity;

  /** Details by pid, for labelling (withDetails, activityOf). */
  get details(): ReadonlyMap<number, ProcessDetails> {
    return this.byPid;
  }

  get(pid: number): ProcessDetails | undefined {
    return this.byPid.get(pid);
  }

  /**
   * Whether the sample's processes need their details read before its frame is built: always when
   * the processes table is due, else when a pid is new or started a statement since its details
   * were read, at most every PROCESS_DETAILS_MIN_INTERVAL_MS.
   */
  needsRead(sample: FastTickSample, processesDue: boolean): boolean {
    if (sample.processes.length === 0) return false;
    if (processesDue) return true;
    if (!isDue(sample.t, this.readAt, PROCESS_DETAILS_MIN_INTERVAL_MS)) return false;
    return sample.processes.some((process) => {
      const known = this.byPid.get(process.pid);
      return known === undefined || known.readAtQueryStart !== process.queryStart;
    });
  }

  /** Stores what PROCESS_DETAILS_SQL returned for the sample's pids. */
  store(sample: FastTickSample, rows: readonly ProcessDetailsQueryRow[]): void {
    const read = new Map<number, ProcessDetails>();
    for (const row of rows) {
      const details = parseProcessDetails(row);
      if (details !== null) read.set(details.pid, details);
    }
    for (const process of sample.processes) {
      // A pid that ended between the two queries has no row: remember it as read, with no details.
      const details = read.get(process.pid) ?? {
        pid: process.pid,
        databaseOid: null,
        database: null,
        user: null,
        state: null,
        queryPreview: null,
        leaderPid: null,
      };
      this.byPid.set(process.pid, { ...details, readAtQueryStart: process.queryStart, seenAt: sample.t });
    }
    this.readAt = sample.t;
  }

  /** A read that failed without losing the session: keep the old details, do not retry at once. */
  readFailed(sample: FastTickSample): void {
    this.readAt = sample.t;
  }

  /** Marks the sample's pids as seen and forgets pids absent for PROCESS_DETAILS_KEEP_MS. */
  noteSeen(sample: FastTickSample): void {
    for (const process of sample.processes) {
      const known = this.byPid.get(process.pid);
      if (known !== undefined) known.seenAt = sample.t;
    }
    for (const [pid, known] of this.byPid) {
      if (sample.t - known.seenAt > PROCESS_DETAILS_KEEP_MS) this.byPid.delete(pid);
    }
  }

  /** After a reconnection: the server that answers next may be another one, with another clock. */
  clear(): void {
    this.byPid = new Map();
    this.readAt = -Infinity;
  }
}
