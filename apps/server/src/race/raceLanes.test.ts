import { describe, expect, it } from 'vitest';
import { summarizeLab } from '@aioscope/core';
import type { LabExperiment, LabRun, LiveFrame } from '@aioscope/spec';
import { captureKey, chooseLanes, readsSeen, type StoredCapture } from './raceLanes.ts';
import { laneEvents } from './raceExport.ts';

function frame(t: number, newReads: number): LiveFrame {
  return {
    t,
    sampleMs: 1,
    skippedTicks: 0,
    inflight: null,
    newReads: { count: newReads, bytes: newReads * 8192, blocksHistogram: { 1: newReads } },
    ioWorkers: [],
    waits: {},
    byProcess: {},
  };
}

function run(variant: string, round: number, executionMs: number, reads = 100): LabRun {
  return {
    variant,
    round,
    startedAt: 0,
    ioMethod: 'worker',
    cacheState: 'cold',
    osResidencyBefore: 0,
    executionMs,
    sharedReadBlocks: 1600,
    sharedHitBlocks: 0,
    ioReadTimeMs: null,
    reads,
    readBytes: reads * 8192,
    bytesPerRead: 8192,
  };
}

function capture(variant: string, round: number, frames: LiveFrame[]): StoredCapture {
  return { variant, round, pid: 42, frames, startT: frames[0]?.t ?? 0, endT: frames.at(-1)?.t ?? 0, error: null };
}

function experiment(runs: LabRun[]): LabExperiment {
  const definition = {
    tableMb: 64,
    cacheState: 'cold' as const,
    rounds: 3,
    baseline: 0,
    variants: [
      { name: 'a', session: {}, server: {} },
      { name: 'b', session: {}, server: {} },
    ],
  };
  return {
    id: 'abcdefabcdef',
    targetId: 't',
    targetName: 't',
    createdAt: 0,
    finishedAt: null,
    status: 'done',
    error: null,
    cancelReason: null,
    definition,
    plannedRuns: 6,
    runs,
    summary: summarizeLab(definition, runs),
    notes: [],
  };
}

describe('race lanes', () => {
  it('counts distinct reads seen across frames', () => {
    expect(readsSeen([frame(0, 3), frame(10, 0), frame(20, 4)])).toBe(7);
  });

  it('shows each variant’s run nearest its median, with the share of reads seen and blocks per read', () => {
    const runs = [run('a', 1, 900), run('b', 1, 300), run('a', 2, 500), run('b', 2, 310), run('a', 3, 620)];
    const captures = new Map(
      runs.map((r) => [
        captureKey(r.variant, r.round),
        capture(r.variant, r.round, [frame(r.round, 10), frame(r.round + 10, 15)]),
      ]),
    );
    const lanes = chooseLanes(experiment(runs), captures);
    // a: median 620 → round 3 (not the lucky 500); b: median 305 → tie, earliest round.
    expect(lanes.map((lane) => `${lane.variant}${lane.round}`)).toEqual(['a3', 'b1']);
    expect(lanes[0]?.seenShare).toBe(0.25);
    expect(lanes[0]?.blocksPerRead).toBe(16);
  });

  it('shows a variant whose run never finished as a lane without a run, never as a result', () => {
    const runs = [run('a', 1, 500)];
    const captures = new Map([
      [captureKey('a', 1), capture('a', 1, [frame(0, 1)])],
      [captureKey('b', 1), capture('b', 1, [frame(5, 1)])],
    ]);
    const lanes = chooseLanes(experiment(runs), captures);
    expect(lanes.map((lane) => [lane.variant, lane.run === null])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(lanes[1]?.seenShare).toBeNull();
  });

  it('marks each lane’s start and end for the recording file, in time order', () => {
    const events = laneEvents([
      capture('b', 1, [frame(100, 1), frame(200, 1)]),
      capture('a', 1, [frame(0, 1), frame(50, 1)]),
    ]);
    expect(events.map((event) => [event.t, event.kind])).toEqual([
      [0, 'labRunStarted'],
      [50, 'labRunEnded'],
      [100, 'labRunStarted'],
      [200, 'labRunEnded'],
    ]);
  });
});
