import { describe, expect, it } from 'vitest';
import type { HistoryFrames, LiveFrame, LiveSnapshot, TargetStatus } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { momentOf } from '../timeline/momentOf.ts';
import { LiveStore, WINDOW_MS, keepBefore } from './liveStore.ts';
import { PROCESS_KEEP_MS } from './stableProcesses.ts';
import { quietFrame as frame } from './testFrames.ts';

const status: TargetStatus = { state: 'live', message: null, since: 0, lastFrameAt: null, skippedTicks: 0 };
const snapshot = (frames: LiveFrame[]): LiveSnapshot => ({
  targetId: 'embedded',
  frames,
  ioDeltas: [],
  status,
  processes: [],
});

describe('keepBefore', () => {
  it('keeps what was held before the incoming items begin, and takes the incoming ones from there', () => {
    const held = [{ t: 1 }, { t: 2 }, { t: 3 }];
    expect(keepBefore(held, [{ t: 2.5 }, { t: 4 }]).map((x) => x.t)).toEqual([1, 2, 2.5, 4]);
    expect(keepBefore(held, [{ t: 0 }]).map((x) => x.t)).toEqual([0]);
    expect(keepBefore(held, []).map((x) => x.t)).toEqual([1, 2, 3]);
    expect(keepBefore(held, [{ t: 9 }]).map((x) => x.t)).toEqual([1, 2, 3, 9]);
  });
});

describe('LiveStore.replace', () => {
  it('after aioscope restarted (a new process, little history), keeps the old samples: the outage is a gap', () => {
    const store = new LiveStore();
    store.replace(snapshot([frame(1_000), frame(1_050)]));
    store.addFrame(frame(1_100));
    // The new process's first samples come 20 s later.
    store.replace(snapshot([frame(21_100)]));
    expect(store.frames.map((f) => f.t)).toEqual([1_000, 1_050, 1_100, 21_100]);
  });

  it('lets a snapshot overwrite the time it covers (a reconnect to the same process)', () => {
    const store = new LiveStore();
    store.replace(snapshot([frame(1_000), frame(1_050), frame(1_100)]));
    store.replace(snapshot([frame(1_050), frame(1_100), frame(1_150)]));
    expect(store.frames.map((f) => f.t)).toEqual([1_000, 1_050, 1_100, 1_150]);
  });
});

describe('LiveStore.addFrame', () => {
  it('drops a frame a snapshot already carried (a relayed frame the snapshot overtook), and keeps newer ones', () => {
    const store = new LiveStore();
    store.addFrame(frame(1_000));
    store.replace(snapshot([frame(1_000), frame(1_050), frame(1_100)]));
    store.addFrame(frame(1_050));
    store.addFrame(frame(1_100));
    store.addFrame(frame(1_150));
    expect(store.frames.map((f) => f.t)).toEqual([1_000, 1_050, 1_100, 1_150]);
    expect(store.repeatedFrames).toBe(2);
  });
});

describe('LiveStore.showMoment', () => {
  // A recorded PostgreSQL 18 server whose processes list loses a process now and then between samples.
  const recorded = buildPayloads(recordedServers()[1] as Parameters<typeof buildPayloads>[0]);
  const range: HistoryFrames = {
    targetId: 'recorded',
    from: Math.floor(recorded.frames[0]?.t ?? 0),
    to: Math.ceil(recorded.frames.at(-1)?.t ?? 0) + 1,
    frames: recorded.frames,
    ioDeltas: [],
    processes: recorded.processLists,
    scansBefore: null,
    processesBefore: null,
  };
  const show = (store: LiveStore, at: number): void =>
    store.showMoment(momentOf(range, at - WINDOW_MS, at, PROCESS_KEEP_MS), at);
  const rowsOf = (store: LiveStore): [number, boolean][] => store.processRows.map((row) => [row.process.pid, row.gone]);
  const freshRows = (at: number): [number, boolean][] => {
    const fresh = new LiveStore();
    show(fresh, at);
    return rowsOf(fresh);
  };
  const moments = recorded.frames.map((frame) => Math.ceil(frame.t));

  it('draws the same processes at a moment whether it was played up to or opened fresh from a link', () => {
    const played = new LiveStore();
    let keptGone = 0;
    for (const at of moments) {
      show(played, at);
      expect(rowsOf(played), `moment ${at}`).toEqual(freshRows(at));
      keptGone += played.processRows.filter((row) => row.gone).length;
    }
    // The recording's point: a process that just left is kept (dimmed) at some moment, on both paths.
    expect(keptGone).toBeGreaterThan(0);
  });

  it("keeps each row in its place through a replay, though each list comes in the server's order", () => {
    // The recorded lists at the server's 2 Hz, so a replay runs longer than a left process is kept.
    const start = recorded.processLists[0]?.t ?? 0;
    const lists = recorded.processLists.map((list, index) => ({ ...list, t: start + index * 500 }));
    const slow: HistoryFrames = { ...range, processes: lists };
    expect((lists.at(-1)?.t ?? 0) - start).toBeGreaterThan(4 * PROCESS_KEEP_MS);
    const store = new LiveStore();
    let previous: number[] = [];
    for (const { t: at } of lists) {
      store.showMoment(momentOf(slow, at - WINDOW_MS, at, PROCESS_KEEP_MS), at);
      const pids = store.processRows.map((row) => row.process.pid);
      const both = (list: number[]): number[] => list.filter((pid) => pids.includes(pid) && previous.includes(pid));
      expect(both(pids), `moment ${at}`).toEqual(both(previous));
      previous = pids;
    }
  });

  it('draws the same processes after stepping back and forth as a link to that moment', () => {
    const stepped = new LiveStore();
    for (const at of [...moments].reverse()) {
      show(stepped, at);
      expect(rowsOf(stepped), `moment ${at}`).toEqual(freshRows(at));
    }
  });
});
