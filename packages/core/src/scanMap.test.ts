import { describe, expect, it } from 'vitest';
import type { ScanView } from '@aioscope/spec';
import { parseFastTickRow, type FastTickQueryRow } from './fastTick.ts';
import { MAX_FINISHED_SCAN_GROUPS, groupScans, layoutScanMap, scansForFrame } from './scanMap.ts';
import { ScanTracker } from './scans.ts';
import { loadFixture } from './testFixtures.ts';

// PostgreSQL 18.6 with io_uring, a cold `SELECT count(*)` of a 947 MB table: one leader (the client
// backend) and two parallel workers, 60 consecutive fast ticks (shared/fixtures/servers).
const recording = loadFixture<{ ticksDuringColdScan: FastTickQueryRow[] }>('servers/pg18.6-io_uring.json');
const TABLE_BLOCKS = (947 * 1024 * 1024) / 8192;

/** Runs the recorded ticks through the tracker; leaders as pg_stat_activity.leader_pid would name them. */
function recordedScanViews(): ScanView[] {
  const tracker = new ScanTracker();
  let views: ScanView[] = [];
  for (const row of recording.ticksDuringColdScan) {
    const sample = parseFastTickRow(row);
    const leader = sample.processes.find((p) => p.backendType === 'client backend')?.pid ?? null;
    const leaderByPid = new Map(
      sample.processes.map((p) => [p.pid, p.backendType === 'parallel worker' ? leader : null] as const),
    );
    views = tracker.update({
      t: sample.t,
      aios: sample.aios ?? [],
      activityByPid: new Map(sample.processes.map((p) => [p.pid, 'SELECT'] as const)),
      leaderByPid,
      resolve: () => ({ name: 'public.big', blocks: TABLE_BLOCKS }),
      blockSize: 8192,
    });
  }
  return views;
}

describe('scan map layout (recorded parallel scan on PostgreSQL 18.6)', () => {
  const views = recordedScanViews();

  it('draws a parallel scan as one scan with the leader and its workers as lanes', () => {
    expect(views).toHaveLength(3);
    const groups = groupScans(views);
    expect(groups).toHaveLength(1);
    const [scan] = groups;
    expect(scan?.relation.name).toBe('public.big');
    expect(scan?.lanes).toHaveLength(3);
    // The leader's lane first.
    expect(scan?.lanes[0]?.leaderPid).toBeNull();
    expect(scan?.lanes[0]?.pid).toBe(scan?.pid);
    expect(scan?.lanes.slice(1).every((lane) => lane.leaderPid === scan.pid)).toBe(true);
    expect(scan?.active).toBe(true);
  });

  it('keeps active scans and only a handful of recently finished ones, whatever the rate of short scans', () => {
    const live = views;
    // 20 earlier scans of the same shape that have ended, one per 500 ms (short queries at 2/s).
    const finished = Array.from({ length: 20 }, (_, i) =>
      live.map((lane): ScanView => ({
        ...lane,
        key: `${lane.key}-old${i}`,
        pid: lane.pid + 100 * (i + 1),
        leaderPid: lane.leaderPid === null ? null : lane.leaderPid + 100 * (i + 1),
        ended: true,
        inflight: [],
        lastSeenAt: lane.lastSeenAt - 500 * (20 - i),
      })),
    ).flat();
    const sent = scansForFrame([...finished, ...live]);
    expect(sent).toHaveLength(3 * (1 + MAX_FINISHED_SCAN_GROUPS));
    const layout = layoutScanMap(sent);
    expect(layout.active).toHaveLength(1);
    expect(layout.finished).toHaveLength(MAX_FINISHED_SCAN_GROUPS);
    // Newest finished first.
    const lastSeen = layout.finished.map((group) => group.lastSeenAt);
    expect([...lastSeen].sort((a, b) => b - a)).toEqual(lastSeen);
  });

  it('counts the active scans it does not draw', () => {
    const many = Array.from({ length: 12 }, (_, i) =>
      views.map((lane): ScanView => ({ ...lane, key: `${lane.key}-${i}`, pid: lane.pid + 1000 * i, leaderPid: null })),
    ).flat();
    const layout = layoutScanMap(many, { maxActive: 8, maxFinished: 5 });
    expect(layout.active).toHaveLength(8);
    expect(layout.moreActive).toBe(36 - 8);
  });
});
