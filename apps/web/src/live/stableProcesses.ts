import type { ProcessView } from '@aioscope/spec';

/** A process stays in the table (dimmed) this long after its last I/O, so rows do not jump. */
export const PROCESS_KEEP_MS = 5_000;

export interface ProcessRow {
  process: ProcessView;
  /** Server time the process was last in the list. */
  lastSeenAt: number;
  /** Not in the newest list: kept, dimmed, until PROCESS_KEEP_MS passed. */
  gone: boolean;
}

/**
 * The processes table in a stable order: a process keeps its place from when it first appeared
 * (new ones join at the end), and one that left stays, dimmed, for PROCESS_KEEP_MS. The server's
 * list is rebuilt twice a second in whatever order it comes, and client backends drop out of it
 * between statements: without this, a click lands on whatever row moved under the mouse.
 */
export function stableProcessRows(
  previous: readonly ProcessRow[],
  current: readonly ProcessView[],
  serverT: number,
  keepMs = PROCESS_KEEP_MS,
): ProcessRow[] {
  const byPid = new Map(current.map((process) => [process.pid, process]));
  const rows: ProcessRow[] = [];
  for (const row of previous) {
    const now = byPid.get(row.process.pid);
    if (now !== undefined) {
      rows.push({ process: now, lastSeenAt: serverT, gone: false });
      byPid.delete(row.process.pid);
    } else if (serverT - row.lastSeenAt <= keepMs) {
      rows.push({ process: row.process, lastSeenAt: row.lastSeenAt, gone: true });
    }
  }
  for (const process of byPid.values()) rows.push({ process, lastSeenAt: serverT, gone: false });
  return rows;
}
