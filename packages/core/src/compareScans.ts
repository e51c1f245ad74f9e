import type { CompareScan, LiveFrame, ScanView } from '@aioscope/spec';

/** Scan rows one side lists, largest first: a range rarely holds more relation scans worth reading. */
export const MAX_COMPARE_SCANS = 20;

/** One scan view's stretch in the range: one process reading one relation, from one start. */
interface Stretch {
  pid: number;
  lowBlocks: number;
  highBlocks: number;
  firstAt: number;
  lastAt: number;
}

interface ScanRow {
  relation: string;
  pid: number;
  pids: Set<number>;
  stretches: Map<string, Stretch>;
}

/** A parallel worker's reads are a lane of its leader's scan: one row per leader and relation. */
function rowKeyOf(scan: ScanView): string {
  const { databaseOid, relfilenode, fork } = scan.relation;
  return `${scan.leaderPid ?? scan.pid}:${databaseOid}:${relfilenode}:${fork}`;
}

function relationOf(scan: ScanView): string {
  const name = scan.relation.name ?? `relfilenode ${scan.relation.relfilenode}`;
  return scan.relation.fork === 'main' ? name : `${name} (${scan.relation.fork})`;
}

/**
 * The relation scans of a range from its frames' scan map (5 Hz): per leader and relation, the
 * blocks the scan map saw it advance in the range × block size, over the time it was seen reading.
 * `scansBefore` is the map in force at the range's start, so a scan already under way counts only
 * what it read inside the range. Two executions of one session on one table in one range fold into
 * one row (the scan map keys a scan by process and relation).
 */
export function scansOfRange(
  frames: readonly LiveFrame[],
  scansBefore: LiveFrame | null,
  range: { from: number; to: number },
  blockSize: number,
): CompareScan[] {
  const before = new Map<string, number>();
  for (const scan of scansBefore?.scans ?? []) before.set(`${scan.key}@${scan.startedAt}`, scan.blocksDone);

  const rows = new Map<string, ScanRow>();
  for (const frame of frames) {
    if (frame.t < range.from || frame.t >= range.to) continue;
    for (const scan of frame.scans ?? []) {
      if (scan.lastSeenAt < range.from) continue;
      const rowKey = rowKeyOf(scan);
      let row = rows.get(rowKey);
      if (row === undefined) {
        row = { relation: relationOf(scan), pid: scan.leaderPid ?? scan.pid, pids: new Set(), stretches: new Map() };
        rows.set(rowKey, row);
      }
      if (scan.relation.name !== null) row.relation = relationOf(scan);
      row.pids.add(scan.pid);
      const id = `${scan.key}@${scan.startedAt}`;
      const stretch = row.stretches.get(id);
      if (stretch === undefined) {
        // Started inside the range: every block it did counts; else only those past the range's start.
        const low = scan.startedAt >= range.from ? 0 : (before.get(id) ?? scan.blocksDone);
        row.stretches.set(id, {
          pid: scan.pid,
          lowBlocks: Math.min(low, scan.blocksDone),
          highBlocks: scan.blocksDone,
          firstAt: Math.max(scan.startedAt, range.from),
          lastAt: Math.min(scan.lastSeenAt, range.to),
        });
      } else {
        stretch.highBlocks = Math.max(stretch.highBlocks, scan.blocksDone);
        stretch.lastAt = Math.max(stretch.lastAt, Math.min(scan.lastSeenAt, range.to));
      }
    }
  }

  const scans: CompareScan[] = [];
  for (const row of rows.values()) {
    const stretches = [...row.stretches.values()];
    const blocks = stretches.reduce((sum, stretch) => sum + stretch.highBlocks - stretch.lowBlocks, 0);
    if (blocks <= 0) continue;
    const durationMs =
      Math.max(...stretches.map((stretch) => stretch.lastAt)) -
      Math.min(...stretches.map((stretch) => stretch.firstAt));
    const bytes = blocks * blockSize;
    scans.push({
      relation: row.relation,
      pid: row.pid,
      processes: row.pids.size,
      // Counted on the leader's own stretches: its parallel workers' lanes are the same scans.
      executions: Math.max(1, stretches.filter((stretch) => stretch.pid === row.pid).length),
      bytes,
      durationMs,
      bytesPerSecond: durationMs > 0 ? bytes / (durationMs / 1000) : null,
    });
  }
  return scans.sort((a, b) => b.bytes - a.bytes).slice(0, MAX_COMPARE_SCANS);
}
