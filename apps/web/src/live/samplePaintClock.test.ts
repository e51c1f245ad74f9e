import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/** A clock (40 ms minimum interval) followed by two views, the strip and the figures, that log their calls. */
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

  it('runs a paced view at shared draws no closer than its interval, and shows the last change when its time comes', () => {
    const frames = manualDraws();
    const store = new LiveStore();
    const clock = new SamplePaintClock(store, 40);
    const calls: string[] = [];
    clock.subscribe(() => {
      frames.count();
      calls.push('strip');
    });
    clock.subscribe(() => calls.push(`figures ${store.latestFrame()?.t}`), 250);

    store.addFrame(frame(1_000));
    frames.run();
    for (const t of [1_050, 1_100, 1_150]) {
      vi.advanceTimersByTime(50);
      store.addFrame(frame(t));
      frames.run();
    }
    expect(calls).toEqual(['strip', 'figures 1000', 'strip', 'strip', 'strip']);

    // No more samples: the draw asked for at 250 ms shows the newest one.
    // (The fake clock runs a zero-delay timer set inside another timer a millisecond later.)
    vi.advanceTimersByTime(101);
    expect(frames.run()).toBe(1);
    expect(calls.slice(5)).toEqual(['strip', 'figures 1150']);
  });
});
