import { describe, expect, it } from 'vitest';
import type { LiveFrame, ScanView } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { scansOfRange } from './compareScans.ts';

const recorded = (): LiveFrame[] => {
  const server = recordedServers().find((candidate) => candidate.name === 'pg18.4-embedded-worker');
  if (server === undefined) throw new Error('the embedded 18 recording');
  return buildPayloads(server).frames;
};

const withScans = (frames: readonly LiveFrame[]): LiveFrame[] => frames.filter((frame) => frame.scans !== undefined);

function scanOf(frame: LiveFrame | undefined): ScanView {
  const scan = frame?.scans?.find((view) => view.relation.name !== null && view.blocksDone > 0);
  if (scan === undefined) throw new Error('a mapped scan with blocks done');
  return scan;
}

describe('scansOfRange', () => {
  it('lists the recorded cold scan once per leader and relation, its bytes the blocks it advanced', () => {
    const frames = recorded();
    const from = Math.floor(frames[0]?.t ?? 0);
    const to = Math.ceil(frames.at(-1)?.t ?? 0) + 1;
    const scans = scansOfRange(frames, null, { from, to }, 8192);
    const rows = scans.filter((scan) => scan.relation === 'aioscope_demo.scan_me');
    const keys = rows.map((scan) => scan.pid);
    expect(new Set(keys).size).toBe(keys.length);
    const last = new Map<string, number>();
    for (const frame of withScans(frames)) for (const scan of frame.scans ?? []) last.set(scan.key, scan.blocksDone);
    // Every process's scan started inside the range: all its blocks count.
    const blocks = [...last.values()].reduce((sum, done) => sum + done, 0);
    expect(rows.reduce((sum, scan) => sum + scan.bytes, 0)).toBe(blocks * 8192);
    expect(rows.every((scan) => scan.executions === 1)).toBe(true);
  });

  it('counts only what a scan under way at the range start read inside the range', () => {
    const mapped = withScans(recorded());
    const start = mapped[Math.floor(mapped.length / 2)];
    if (start === undefined) throw new Error('a frame with the scan map mid-scan');
    const leader = scanOf(start).leaderPid ?? scanOf(start).pid;
    const later = mapped.filter((frame) => frame.t > start.t);
    const range = { from: start.t + 1, to: Math.ceil(mapped.at(-1)?.t ?? 0) + 1 };
    // Per scan of the leader's row: its last blocks done in the range less those done at the start.
    const atStart = new Map((start.scans ?? []).map((view) => [`${view.key}@${view.startedAt}`, view.blocksDone]));
    const last = new Map<string, number>();
    for (const view of later.flatMap((frame) => frame.scans ?? []))
      if ((view.leaderPid ?? view.pid) === leader && view.relation.name === 'aioscope_demo.scan_me')
        last.set(`${view.key}@${view.startedAt}`, view.blocksDone);
    let blocks = 0;
    for (const [id, done] of last) blocks += done - (atStart.get(id) ?? 0);
    const row = scansOfRange(later, start, range, 8192).find(
      (candidate) => candidate.pid === leader && candidate.relation === 'aioscope_demo.scan_me',
    );
    expect(blocks).toBeGreaterThan(0);
    expect(row?.bytes).toBe(blocks * 8192);
    // Without the map in force at the start, the range would begin at each scan's first sighting in it.
    const unaware = scansOfRange(later, null, range, 8192).find((candidate) => candidate.pid === leader);
    expect(unaware?.bytes).toBeLessThan(row?.bytes ?? 0);
  });
});
