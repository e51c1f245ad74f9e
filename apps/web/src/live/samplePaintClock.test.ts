import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TargetStatus } from '@aioscope/spec';
import { LiveStore } from './liveStore.ts';
import { SamplePaintClock } from './samplePaintClock.ts';
import { quietFrame as frame } from './testFrames.ts';

/**
 * The clock's draws are timer tasks (drawThrottle): `run` runs every draw due by now and says how
 * many ran since it was last called, also while the test advanced the clock (each draw calls the
 * counting view first).
 */
function manualDraws(): { run: () => number; count: () => void } {
  vi.stubGlobal('document', { hidden: false });
  let draws = 0;
  let seen = 0;
  return {
    count: () => draws++,
    run: () => {
      vi.advanceTimersByTime(0);
      const ran = draws - seen;
      seen = draws;
      return ran;
    },
  };
}

/**
 * A clock (40 ms minimum interval) followed by two views that log their calls: the strip, and a
 * second one standing for any other per-sample drawing (the "now" figures no longer are: they change
 * with the charts' bucket render), so a draw is shown to run every subscriber once.
 */
function twoViews(): { frames: { run: () => number }; store: LiveStore; calls: string[] } {
  const frames = manualDraws();
  const store = new LiveStore();
  const clock = new SamplePaintClock(store, 40);
  const calls: string[] = [];
  clock.subscribe(() => {
    frames.count();
    calls.push('strip');
  });
  clock.subscribe(() => calls.push('figures'));
  return { frames, store, calls };
}

const status: TargetStatus = { state: 'live', message: null, since: 0, lastFrameAt: null, skippedTicks: 0 };

describe('SamplePaintClock', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.advanceTimersByTime(1_000); // the fake clock starts at 0, where the first draw would wait
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('runs every view in one draw per sample, however many views follow it', () => {
    const { frames, store, calls } = twoViews();

    store.addFrame(frame(1_000));
    store.addFrame(frame(1_001)); // arriving together: still one draw
    expect(frames.run()).toBe(1);
    expect(calls).toEqual(['strip', 'figures']);
  });

  it('keeps the views together when a sample comes before the draw budget allows', () => {
    const { frames, store, calls } = twoViews();
    store.addFrame(frame(1_000));
    frames.run();

    vi.advanceTimersByTime(10);
    store.addFrame(frame(1_010));
    expect(frames.run()).toBe(1); // the second draw in hand (LIVE_DRAW_BURST)
    vi.advanceTimersByTime(10);
    store.addFrame(frame(1_020));
    expect(frames.run()).toBe(0); // too soon: waits until one more interval has filled the budget
    vi.advanceTimersByTime(19);
    expect(frames.run()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(frames.run()).toBe(1);
    expect(calls).toEqual(['strip', 'figures', 'strip', 'figures', 'strip', 'figures']);
  });

  it('stops following the store once the last view leaves, and asks for nothing without views', () => {
    const frames = manualDraws();
    const store = new LiveStore();
    const clock = new SamplePaintClock(store, 40);
    const listener = vi.fn(frames.count);
    const unsubscribe = clock.subscribe(listener);
    unsubscribe();
    store.addFrame(frame(1_000));
    clock.request();
    expect(frames.run()).toBe(0);
    expect(listener).not.toHaveBeenCalled();
  });

  it('draws for a new sample or a replaced newest one, not for a change that brings no sample', () => {
    const frames = manualDraws();
    const store = new LiveStore();
    const clock = new SamplePaintClock(store, 40);
    clock.subscribe(frames.count);
    store.addFrame(frame(1_000));
    expect(frames.run()).toBe(1);

    vi.advanceTimersByTime(100);
    store.setStatus(status);
    store.setProcesses([], 1_000);
    expect(frames.run()).toBe(0);

    // A snapshot after a reconnect replaces the frames: the strip must show them.
    store.replace({ targetId: 'embedded', frames: [frame(900), frame(1_100)], ioDeltas: [], status, processes: [] });
    expect(frames.run()).toBe(1);
    vi.advanceTimersByTime(100);
    store.addFrame(frame(1_150));
    expect(frames.run()).toBe(1);
  });
});
