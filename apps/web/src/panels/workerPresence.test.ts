import { describe, expect, it } from 'vitest';
import { busyShareByWorker } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { presentWorkerPids, presentWorkersOnly, WORKER_PRESENT_MS } from './workerPresence.ts';

const servers = new Map(recordedServers().map((server) => [server.name, server]));
function framesOf(name: string): LiveFrame[] {
  const server = servers.get(name);
  if (server === undefined) throw new Error(`no recording ${name}`);
  return buildPayloads(server).frames;
}

/** The recording's frames moved to start `startT` on the server's clock. */
function movedTo(frames: readonly LiveFrame[], startT: number): LiveFrame[] {
  const first = frames[0]?.t ?? 0;
  return frames.map((frame) => ({ ...frame, t: frame.t - first + startT }));
}

// PostgreSQL 19beta3 with io workers during a cold scan, then (as after an io_method restart)
// the same server's clock carrying on with io_uring: no io worker exists any more.
const worker = framesOf('pg19beta3-worker');
const workerEnd = worker[worker.length - 1]?.t ?? 0;
const afterRestart = movedTo(framesOf('pg18.6-io_uring'), workerEnd + 3_000);

describe('io workers listed only while they exist (recorded servers)', () => {
  it('lists the recorded pool while it runs', () => {
    const present = presentWorkerPids(worker);
    expect(present.size).toBeGreaterThanOrEqual(2);
    expect(present).toEqual(new Set(busyShareByWorker(worker).map((entry) => entry.pid)));
  });

  it('drops every worker once frames without them cover the last 2 s, though the 60 s window still holds them', () => {
    const window = [...worker, ...afterRestart];
    // The window's busy share still counts the old pool: that is the list the panel drew before.
    expect(busyShareByWorker(window).length).toBeGreaterThanOrEqual(2);
    expect(presentWorkersOnly(busyShareByWorker(window), presentWorkerPids(window))).toEqual([]);
  });

  it('keeps a worker missing from the newest frame only (a skipped sample) within 2 s', () => {
    const newest = worker[worker.length - 1] as LiveFrame;
    const withoutWorkers = { ...newest, t: newest.t + WORKER_PRESENT_MS / 2, ioWorkers: [] };
    expect(presentWorkerPids([...worker, withoutWorkers])).toEqual(presentWorkerPids(worker));
  });

  it('a pool that shrank: workers that left are dropped, those that stayed keep their place', () => {
    const pids = [...presentWorkerPids(worker)].sort((a, b) => a - b);
    const kept = new Set(pids.slice(0, 2));
    const shrunk = movedTo(worker, workerEnd + 5_000).map((frame) => ({
      ...frame,
      ioWorkers: frame.ioWorkers.filter((entry) => kept.has(entry.pid)),
    }));
    const window = [...worker, ...shrunk];
    const listed = presentWorkersOnly(busyShareByWorker(window), presentWorkerPids(window));
    expect(listed.map((entry) => entry.pid)).toEqual([...kept]);
  });
});
