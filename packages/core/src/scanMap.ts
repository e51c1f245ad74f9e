import type { ScanView } from '@aioscope/spec';

/** Finished scans (groups) kept on the map, newest first: a handful, with their totals. */
export const MAX_FINISHED_SCAN_GROUPS = 5;
/** Active scans (groups) drawn in full; more are counted, so a busy server keeps the map readable. */
export const MAX_ACTIVE_SCAN_GROUPS = 8;

/**
 * One scan as a person thinks of it: a process reading a relation, with the parallel workers
 * that help it (pg_stat_activity.leader_pid) as lanes of the same scan.
 */
export interface ScanGroup {
  key: string;
  /** The leader's pid (or the only process's). */
  pid: number;
  relation: ScanView['relation'];
  activity: string;
  /** The leader's lane first (when it reads at all), then its workers by pid. */
  lanes: ScanView[];
  /** Some lane still has reads in flight. */
  active: boolean;
  startedAt: number;
  lastSeenAt: number;
  /** The furthest lane's progress (parallel workers share the relation's blocks between them). */
  progress: number | null;
  completed: boolean;
}

function relationKeyOf(scan: ScanView): string {
  return `${scan.relation.databaseOid}/${scan.relation.relfilenode}/${scan.relation.fork}`;
}

/** Groups lanes into scans: a parallel worker joins its leader's scan of the same relation. */
export function groupScans(scans: readonly ScanView[]): ScanGroup[] {
  const groups = new Map<string, ScanGroup>();
  for (const scan of scans) {
    const pid = scan.leaderPid ?? scan.pid;
    const key = `${pid}:${relationKeyOf(scan)}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        key,
        pid,
        relation: scan.relation,
        activity: scan.activity,
        lanes: [],
        active: false,
        startedAt: scan.startedAt,
        lastSeenAt: scan.lastSeenAt,
        progress: null,
        completed: false,
      };
      groups.set(key, group);
    }
    group.lanes.push(scan);
    group.active ||= !scan.ended;
    group.startedAt = Math.min(group.startedAt, scan.startedAt);
    group.lastSeenAt = Math.max(group.lastSeenAt, scan.lastSeenAt);
    if (scan.progress !== null) group.progress = Math.max(group.progress ?? 0, scan.progress);
    group.completed ||= scan.completed;
    if (scan.pid === pid) group.activity = scan.activity;
  }
  for (const group of groups.values()) {
    group.lanes.sort((a, b) => Number(b.pid === group.pid) - Number(a.pid === group.pid) || a.pid - b.pid);
  }
  return [...groups.values()];
}

export interface ScanMapLayout {
  /** Active scans, oldest first, at most MAX_ACTIVE_SCAN_GROUPS. */
  active: ScanGroup[];
  /** Active scans beyond those drawn. */
  moreActive: number;
  /** Recently finished scans, newest first, at most MAX_FINISHED_SCAN_GROUPS. */
  finished: ScanGroup[];
}

/** What the map shows: active scans first, finished ones folded into a short recent list. */
export function layoutScanMap(
  scans: readonly ScanView[],
  limits: { maxActive: number; maxFinished: number } = {
    maxActive: MAX_ACTIVE_SCAN_GROUPS,
    maxFinished: MAX_FINISHED_SCAN_GROUPS,
  },
): ScanMapLayout {
  const groups = groupScans(scans);
  const active = groups.filter((group) => group.active).sort((a, b) => a.startedAt - b.startedAt);
  const finished = groups
    .filter((group) => !group.active)
    .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
    .slice(0, limits.maxFinished);
  return {
    active: active.slice(0, limits.maxActive),
    moreActive: Math.max(0, active.length - limits.maxActive),
    finished,
  };
}

/**
 * The lanes a frame carries: every active scan's (a lane that paused while its scan goes on
 * included), and those of the few most recently finished. A server running hundreds of short
 * scans a second must not grow the frames, or the page, with them.
 */
export function scansForFrame(scans: readonly ScanView[], maxFinished = MAX_FINISHED_SCAN_GROUPS): ScanView[] {
  const groups = groupScans(scans);
  const recentFinished = groups
    .filter((group) => !group.active)
    .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
    .slice(0, maxFinished);
  return [...groups.filter((group) => group.active), ...recentFinished].flatMap((group) => group.lanes);
}
