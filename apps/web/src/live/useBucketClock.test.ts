import { describe, expect, it } from 'vitest';
import { LiveStore, WINDOW_MS } from './liveStore.ts';
import { quietFrame } from './testFrames.ts';
import { bucketDomainEnd, bucketViewOf, IDLE_RENDER_MS } from './useBucketClock.ts';

describe('bucketDomainEnd', () => {
  const bucketMs = 200;

  it('ends the window at the start of the bucket the newest frame opened', () => {
    // Frame at ...1_150 opened the bucket [1_000, 1_200): [800, 1_000) is complete.
    expect(bucketDomainEnd(1_150, 1_160, 10, bucketMs)).toBe(1_000);
    expect(bucketDomainEnd(1_200, 1_205, 5, bucketMs)).toBe(1_200);
  });

  it('does not run ahead of the frames while they keep coming', () => {
    expect(bucketDomainEnd(1_150, 5_000, IDLE_RENDER_MS - 1, bucketMs)).toBe(1_000);
  });

  it('follows the server clock once frames stop, so the gap shows', () => {
    expect(bucketDomainEnd(1_150, 4_321, IDLE_RENDER_MS, bucketMs)).toBe(4_200);
    expect(bucketDomainEnd(undefined, 4_321, null, bucketMs)).toBe(4_200);
  });

  it('never moves back when the estimated server clock lags the frames', () => {
    expect(bucketDomainEnd(9_999, 4_321, 2 * IDLE_RENDER_MS, bucketMs)).toBe(9_800);
  });
});

describe('bucketViewOf', () => {
  const bucketMs = 500;
  const storeWithFramesUpTo = (lastT: number): LiveStore => {
    const store = new LiveStore();
    for (let t = 0; t <= lastT; t += 50) store.addFrame(quietFrame(t));
    return store;
  };

  it('holds the complete buckets of the window, read from the store when the clock ticked', () => {
    const store = storeWithFramesUpTo(70_120);
    const view = bucketViewOf(store, bucketMs, true, Date.now());
    expect(view.domainEnd).toBe(70_000);
    expect(view.frames[0]?.t).toBe(70_000 - WINDOW_MS);
    expect(view.frames.at(-1)?.t).toBe(69_950);
    // The store moves on; the view a render draws does not.
    store.addFrame(quietFrame(70_500));
    expect(view.frames.at(-1)?.t).toBe(69_950);
    expect(view.connection.socketState).toBe('connecting');
  });

  it("keeps the last view's arrays while nothing new arrived, so memos downstream hold", () => {
    const store = storeWithFramesUpTo(10_120);
    const first = bucketViewOf(store, bucketMs, true, Date.now());
    const again = bucketViewOf(store, bucketMs, true, Date.now(), first);
    expect(again.frames).toBe(first.frames);
    expect(again.deltas).toBe(first.deltas);
    store.addFrame(quietFrame(10_550));
    expect(bucketViewOf(store, bucketMs, true, Date.now(), again).frames).not.toBe(first.frames);
  });

  it('holds no frames while they are not followed (a past range on screen)', () => {
    const store = storeWithFramesUpTo(5_000);
    expect(bucketViewOf(store, bucketMs, false, Date.now()).frames).toEqual([]);
  });
});
