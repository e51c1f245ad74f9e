import { describe, expect, it } from 'vitest';
import type { LiveFrame } from '@aioscope/spec';
import type { FastTickQueryRow } from './fastTick.ts';
import { workerVerdict } from './saturation.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';

function frame(t: number, busy: boolean[], backlog: number, waits: Record<string, number> = {}): LiveFrame {
  return {
    t,
    sampleMs: 1,
    skippedTicks: 0,
    inflight: { total: { count: backlog, bytes: backlog * 131072 }, byState: {}, workerBacklog: backlog },
    newReads: { count: 0, bytes: 0, blocksHistogram: {} },
    ioWorkers: busy.map((b, i) => ({ pid: i + 1, busy: b, waitEvent: b ? 'DataFileRead' : 'IoWorkerMain' })),
    waits,
    byProcess: {},
    scans: [],
  };
}

describe('workerVerdict', () => {
  it('names the span of its evidence: the last seconds live, or as the caller describes a past one', () => {
    const frames = Array.from({ length: 201 }, (_, i) => frame(i * 50, [true, false, false], 0));
    expect(workerVerdict(frames, 'worker').evidence[0]).toBe('3 io workers busy in 33 % of samples (last 10 s)');
    expect(workerVerdict(frames, 'worker', (seconds) => `${seconds} s up to 20:31:33`).evidence[0]).toBe(
      '3 io workers busy in 33 % of samples (10 s up to 20:31:33)',
    );
  });

  it('calls all workers busy with a backlog saturated', () => {
    const frames = Array.from({ length: 20 }, (_, i) => frame(i * 50, [true, true, true], 9));
    expect(workerVerdict(frames, 'worker').level).toBe('saturated');
  });

  it('calls client backends in DataFileRead under worker mode saturated', () => {
    const frames = Array.from({ length: 10 }, (_, i) =>
      frame(i * 50, [false, true, false], 1, { 'client backend:DataFileRead': 1 }),
    );
    const verdict = workerVerdict(frames, 'worker');
    expect(verdict.level).toBe('saturated');
    expect(verdict.summary).toMatch(/read for themselves/);
    const once = [
      frame(0, [false, true, false], 1, { 'client backend:DataFileRead': 1 }),
      ...frames.slice(1).map((f) => ({ ...f, waits: {} })),
    ];
    expect(workerVerdict(once, 'worker').level).not.toBe('saturated');
  });

  it('says keeping up for the recorded cold scan (workers mostly idle on fast storage)', () => {
    const fixture = loadFixture<{ duringScan: FastTickQueryRow[] }>('pg18-fast-tick.json');
    const frames = framesOfRows(fixture.duringScan);
    const verdict = workerVerdict(frames, 'worker');
    expect(['keeping up', 'busy']).toContain(verdict.level);
    expect(verdict.evidence[0]).toMatch(/3 io workers busy in \d+ %/);
  });

  it('is not applicable without io workers, and idle without reads', () => {
    expect(workerVerdict([], 'io_uring').level).toBe('not applicable');
    expect(workerVerdict([frame(0, [false, false], 0)], 'worker').level).toBe('idle');
  });
});
