import { describe, expect, it } from 'vitest';
import type { FastTickQueryRow } from './fastTick.ts';
import { ioMethodOf, relevantWaitEvents, settingApplies, stateGroups } from './ioMethod.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';

// PostgreSQL 18.6 with io_method = io_uring during a cold parallel scan (shared/fixtures/servers).
const ioUring = loadFixture<{ ticksDuringColdScan: FastTickQueryRow[]; settings: { name: string; setting: string }[] }>(
  'servers/pg18.6-io_uring.json',
);

const framesOf = (rows: FastTickQueryRow[], ioMethod: string): ReturnType<typeof framesOfRows> =>
  framesOfRows(rows, ioMethod);

describe('io_method decides what a state means (recorded io_uring server)', () => {
  const method = ioMethodOf(ioUring.settings.find((s) => s.name === 'io_method')?.setting);
  const frames = framesOf(ioUring.ticksDuringColdScan, method ?? 'unknown');

  it('reads the recording as io_uring', () => {
    expect(method).toBe('io_uring');
  });

  it('counts no worker backlog: nearly every read is SUBMITTED, handed to the kernel, not queued for a worker', () => {
    const withReads = frames.filter((frame) => (frame.inflight?.total.count ?? 0) > 0);
    expect(withReads.length).toBeGreaterThan(10);
    const submitted = withReads.reduce((n, frame) => n + (frame.inflight?.byState.SUBMITTED?.count ?? 0), 0);
    const total = withReads.reduce((n, frame) => n + (frame.inflight?.total.count ?? 0), 0);
    expect(submitted / total).toBeGreaterThan(0.9);
    for (const frame of withReads) expect(frame.inflight?.workerBacklog).toBeNull();
    // The same samples read as if the server had io workers would claim a backlog.
    const asWorker = framesOf(ioUring.ticksDuringColdScan, 'worker');
    expect(Math.max(...asWorker.map((frame) => frame.inflight?.workerBacklog ?? 0))).toBeGreaterThan(0);
  });

  it('names SUBMITTED for the method, and drops settings that do nothing there', () => {
    expect(stateGroups('io_uring')[0]?.label).toMatch(/in the kernel/);
    expect(stateGroups('worker')[0]?.label).toMatch(/io worker/);
    expect(stateGroups('sync')[0]?.label).toMatch(/backend itself/);
    expect(settingApplies('io_workers', 'io_uring')).toBe(false);
    expect(settingApplies('io_max_workers', 'sync')).toBe(false);
    expect(settingApplies('io_workers', 'worker')).toBe(true);
    expect(settingApplies('io_combine_limit', 'io_uring')).toBe(true);
  });

  it('lists the wait events the recorded backends were actually in', () => {
    const seen = new Set(frames.flatMap((frame) => Object.keys(frame.waits).map((key) => key.split(':')[1])));
    expect(seen.size).toBeGreaterThan(0);
    const { events } = relevantWaitEvents('io_uring');
    for (const event of seen) expect(events).toContain(event);
    expect(events).not.toContain('IoWorkerMain');
  });
});
