import { describe, expect, it } from 'vitest';
import type { LiveFrame, LiveSnapshot, TargetStatus } from '@aioscope/spec';
import { LiveStore, keepBefore } from './liveStore.ts';
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
