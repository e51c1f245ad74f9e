import { describe, expect, it } from 'vitest';
import { parseFastTickRow, type AioRow, type FastTickQueryRow } from './fastTick.ts';
import { SCAN_IDLE_MS, ScanTracker, activityOf, isMaintenanceActivity, mergeRanges } from './scans.ts';
import { loadFixture } from './testFixtures.ts';

const fixture = loadFixture<{ duringScan: FastTickQueryRow[] }>('pg18-fast-tick.json');
const TABLE_BLOCKS = 263192576 / 8192;

function read(
  pid: number,
  ioId: number,
  generation: number,
  first: number,
  last: number,
  file = 'base/5/16423',
): AioRow {
  return {
    pid,
    ioId,
    ioGeneration: generation,
    state: 'SUBMITTED',
    operation: 'readv',
    length: (last - first + 1) * 8192,
    blocks: last - first + 1,
    fSync: false,
    fLocalmem: false,
    targetDesc: `blocks ${first}..${last} in file "${file}"`,
  };
}

function tracker() {
  const scans = new ScanTracker();
  return (t: number, aios: AioRow[], blocks = 1000) =>
    scans.update({
      t,
      aios,
      activityByPid: new Map([[1, 'SELECT']]),
      resolve: () => ({ name: 'public.big', blocks }),
      blockSize: 8192,
    });
}

describe('ScanTracker', () => {
  it('follows the recorded cold scan: one scan, frontier moving forward, look-ahead ≥ 0', () => {
    let previousFrontier = -1;
    const scans = new ScanTracker();
    for (const row of fixture.duringScan) {
      const sample = parseFastTickRow(row);
      const [scan] = scans.update({
        t: sample.t,
        aios: sample.aios ?? [],
        activityByPid: new Map(),
        resolve: () => ({ name: 'aioscope_demo.scan_me', blocks: TABLE_BLOCKS }),
        blockSize: 8192,
      });
      if (scan === undefined) continue;
      expect(scan.frontier).toBeGreaterThanOrEqual(previousFrontier);
      expect(scan.lookAheadBlocks).toBeGreaterThanOrEqual(0);
      expect(scan.progress).toBeGreaterThanOrEqual(0);
      expect(scan.progress).toBeLessThanOrEqual(1);
      previousFrontier = scan.frontier;
    }
    expect(previousFrontier).toBeGreaterThan(0);
  });

  it('views built only now and then (as frames carry the map) match views built at every sample', () => {
    const everySample = new ScanTracker();
    const nowAndThen = new ScanTracker();
    let compared = 0;
    fixture.duringScan.forEach((row, index) => {
      const sample = parseFastTickRow(row);
      const input = {
        t: sample.t,
        aios: sample.aios ?? [],
        activityByPid: new Map<number, string>(),
        resolve: () => ({ name: 'aioscope_demo.scan_me', blocks: TABLE_BLOCKS }),
        blockSize: 8192,
      };
      const views = everySample.update(input);
      nowAndThen.advance(input);
      if (index % 4 !== 3) return;
      expect(nowAndThen.views(input)).toEqual(views);
      compared += views.length;
    });
    expect(compared).toBeGreaterThan(0);
  });

  it('keeps a lane that went idle with no ranges in flight, sample after sample', () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 0, 15)]);
    const [idle] = update(100, []);
    expect(idle?.inflight).toEqual([]);
    const [later] = update(150, []);
    expect(later?.inflight).toEqual([]);
    expect(later?.frontier).toBe(16);
    const [resumed] = update(200, [read(1, 2, 1, 16, 31)]);
    expect(resumed?.inflight).toEqual([[16, 31]]);
  });

  it('advances the frontier to the end of reads that left pg_aios, and measures look-ahead', () => {
    const update = tracker();
    let [scan] = update(0, [read(1, 1, 1, 0, 15), read(1, 2, 1, 16, 31), read(1, 3, 1, 32, 47)]);
    expect(scan?.frontier).toBe(0);
    expect(scan?.lookAheadBlocks).toBe(48);
    expect(scan?.inflight).toEqual([[0, 47]]);
    [scan] = update(100, [read(1, 3, 1, 32, 47), read(1, 1, 2, 48, 63)]);
    expect(scan?.frontier).toBe(32);
    expect(scan?.lookAheadBlocks).toBe(32);
    expect(scan?.furthest).toBe(63);
    [scan] = update(200, []);
    expect(scan?.frontier).toBe(64);
    expect(scan?.lookAheadBlocks).toBe(0);
    expect(scan?.progress).toBeCloseTo(64 / 1000);
  });

  it('reaches 100 % when the last read leaves pg_aios', () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 16, 31)]);
    update(20, [read(1, 2, 1, 984, 999)]);
    const [scan] = update(50, []);
    expect(scan?.startBlock).toBe(0);
    expect(scan?.progress).toBe(1);
    expect(scan?.completed).toBe(true);
  });

  it('follows a synchronized scan that joins mid-table and wraps around', () => {
    const update = tracker();
    let [scan] = update(0, [read(1, 1, 1, 500, 515)]);
    expect(scan?.startBlock).toBe(500);
    expect(scan?.blocksDone).toBe(0);
    update(10, [read(1, 2, 1, 984, 999)]);
    [scan] = update(20, [read(1, 3, 1, 0, 15)]);
    expect(scan?.blocksDone).toBe(500);
    expect(scan?.frontier).toBe(0);
    expect(scan?.completed).toBe(false);
    update(30, [read(1, 4, 1, 480, 495)]);
    [scan] = update(40, []);
    expect(scan?.blocksDone).toBe(996);
    // Ended after wrapping, 4 blocks short of where it was first seen: those were read before.
    [scan] = update(40 + SCAN_IDLE_MS + 1, []);
    expect(scan?.completed).toBe(true);
    expect(scan?.progress).toBe(1);
  });

  it("keeps following a scan that pauses its own I/O (riding another scan's buffers)", () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 0, 15)]);
    const [scan] = update(SCAN_IDLE_MS * 3, [read(1, 2, 1, 400, 415)]);
    expect(scan?.startedAt).toBe(0);
    expect(scan?.blocksDone).toBe(400);
  });

  it('does not call a scan that stopped half way complete', () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 0, 15)]);
    update(10, [read(1, 2, 1, 400, 415)]);
    const [scan] = update(10 + SCAN_IDLE_MS + 1, []);
    expect(scan?.ended).toBe(true);
    expect(scan?.completed).toBe(false);
    expect(scan?.progress).toBeCloseTo(0.416);
  });

  it('measures speed from the frontier over the server clock', () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 0, 15)]);
    update(500, [read(1, 2, 1, 128, 143)]);
    const [scan] = update(1000, [read(1, 3, 1, 256, 271)]);
    // 256 blocks in 1 s
    expect(scan?.bytesPerSecond).toBeCloseTo(256 * 8192);
  });

  it('keeps concurrent scans of two processes apart and marks idle ones ended', () => {
    const update = tracker();
    const views = update(0, [read(1, 1, 1, 0, 15), read(2, 1, 1, 500, 515)]);
    expect(views.map((v) => v.pid).sort()).toEqual([1, 2]);
    const later = update(SCAN_IDLE_MS + 10, [read(2, 2, 1, 516, 531)]);
    expect(later.find((v) => v.pid === 1)?.ended).toBe(true);
    expect(later.find((v) => v.pid === 2)?.ended).toBe(false);
  });

  it('starts a new scan when the same process reads the relation again after a pause or from the start', () => {
    const update = tracker();
    update(0, [read(1, 1, 1, 0, 15)]);
    update(10, [read(1, 1, 2, 984, 999)]);
    update(50, []);
    const [again] = update(50 + SCAN_IDLE_MS + 100, [read(1, 2, 1, 0, 15)]);
    expect(again?.blocksDone).toBe(0);
    expect(again?.startedAt).toBe(50 + SCAN_IDLE_MS + 100);
    update(2000, [read(1, 3, 1, 600, 615)]);
    const [rescan] = update(3000, [read(1, 3, 2, 0, 15)]);
    expect(rescan?.blocksDone).toBe(0);
    expect(rescan?.startedAt).toBe(3000);
    const jump = tracker();
    jump(0, [read(1, 1, 1, 5000, 5015)]);
    const [back] = jump(10, [read(1, 2, 1, 0, 15)]);
    expect(back?.startedAt).toBe(10);
  });

  it('treats segment files as one relation with relation-wide blocks', () => {
    const update = tracker();
    const views = update(0, [read(1, 1, 1, 0, 15, 'base/5/16423.1'), read(1, 2, 1, 131056, 131071, 'base/5/16423')]);
    expect(views).toHaveLength(1);
    expect(views[0]?.inflight).toEqual([[131056, 131087]]);
  });

  it('ignores non-reads and unparsable descriptions', () => {
    const update = tracker();
    expect(
      update(0, [
        { ...read(1, 1, 1, 0, 15), targetDesc: 'garbage' },
        { ...read(1, 2, 1, 0, 1), operation: 'writev' },
      ]),
    ).toEqual([]);
  });
});

describe('helpers', () => {
  it('merges overlapping and adjacent ranges', () => {
    expect(
      mergeRanges([
        [32, 47],
        [0, 15],
        [16, 31],
        [64, 70],
      ]),
    ).toEqual([
      [0, 47],
      [64, 70],
    ]);
  });

  it('labels what a process does', () => {
    expect(activityOf('client backend', 'SELECT count(*) FROM t')).toBe('SELECT');
    expect(activityOf('client backend', '/* app */ VACUUM (VERBOSE) t')).toBe('VACUUM');
    expect(activityOf('client backend', 'analyze t')).toBe('ANALYZE');
    expect(activityOf('autovacuum worker', 'autovacuum: VACUUM public.t')).toBe('autovacuum: VACUUM public.t');
    expect(activityOf('io worker', null)).toBe('io worker');
    expect(isMaintenanceActivity('VACUUM')).toBe(true);
    expect(isMaintenanceActivity('SELECT')).toBe(false);
  });
});
