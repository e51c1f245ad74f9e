import { describe, expect, it } from 'vitest';
import { indexAtOrAfter, KeptBuckets } from './keptBuckets.ts';
import type { FastTickQueryRow } from './fastTick.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';
import { summarizeLiveWindow, WindowSummarizer } from './window.ts';

type Item = { t: number; v: number };

/** A KeptBuckets summing v, counting how many buckets it had to compute. */
function counting(): { buckets: KeptBuckets<Item, number>; computed: () => number } {
  let computed = 0;
  const buckets = new KeptBuckets<Item, number>((bucket) => {
    computed++;
    return bucket.reduce((sum, item) => sum + item.v, 0);
  });
  return { buckets, computed: () => computed };
}

const itemsEvery100ms = (from: number, to: number): Item[] =>
  Array.from({ length: (to - from) / 100 }, (_, i) => ({ t: from + i * 100, v: 1 }));

describe('indexAtOrAfter', () => {
  it('finds the first item at or after a time, from a starting index', () => {
    const items = [{ t: 1 }, { t: 3 }, { t: 3 }, { t: 7 }];
    expect(indexAtOrAfter(items, 3)).toBe(1);
    expect(indexAtOrAfter(items, 4)).toBe(3);
    expect(indexAtOrAfter(items, 8)).toBe(4);
    expect(indexAtOrAfter(items, 0, 2)).toBe(2);
  });
});

describe('KeptBuckets', () => {
  it('computes a bucket once while the window moves over it, and only the new bucket at each move', () => {
    const { buckets, computed } = counting();
    const items = itemsEvery100ms(0, 10_000);
    expect(buckets.values(items, 0, 5_000, 500)).toEqual(Array.from({ length: 10 }, () => 5));
    expect(computed()).toBe(10);
    expect(buckets.values(items, 500, 5_500, 500)).toHaveLength(10);
    expect(computed()).toBe(11);
  });

  it('returns the same array when no bucket changed, a new one when one did', () => {
    const { buckets } = counting();
    const items = itemsEvery100ms(0, 2_000);
    const first = buckets.values(items, 0, 2_000, 500);
    expect(buckets.values(items, 0, 2_000, 500)).toBe(first);
    items.push({ t: 1_950, v: 10 });
    const grown = buckets.values(items, 0, 2_000, 500);
    expect(grown).not.toBe(first);
    expect(grown).toEqual([5, 5, 5, 15]);
  });

  it('computes a bucket again when its items were replaced by new objects (a snapshot after a reconnect)', () => {
    const { buckets, computed } = counting();
    const before = itemsEvery100ms(0, 1_000);
    buckets.values(before, 0, 1_000, 500);
    // The same times, new objects with other values: a kept result would be wrong.
    const replaced = before.map((item) => ({ ...item, v: 2 }));
    expect(buckets.values(replaced, 0, 1_000, 500)).toEqual([10, 10]);
    expect(computed()).toBe(4);
  });

  it('starts over when the bucket length changes, and an empty bucket stays empty until filled', () => {
    const { buckets } = counting();
    const items: Item[] = [{ t: 100, v: 1 }];
    expect(buckets.values(items, 0, 1_000, 500)).toEqual([1, 0]);
    items.push({ t: 700, v: 3 });
    expect(buckets.values(items, 0, 1_000, 500)).toEqual([1, 3]);
    expect(buckets.values(items, 0, 1_000, 1_000)).toEqual([4]);
  });
});

describe('WindowSummarizer (recorded on PostgreSQL 18)', () => {
  const fixture = loadFixture<{ idle: FastTickQueryRow; duringScan: FastTickQueryRow[] }>('pg18-fast-tick.json');
  const frames = framesOfRows([fixture.idle, ...fixture.duringScan]);

  it('gives the whole-window summary at every position of a moving window', () => {
    const summarizer = new WindowSummarizer();
    const first = frames[0]?.t ?? 0;
    const last = frames[frames.length - 1]?.t ?? 0;
    const windowMs = Math.max(200, (last - first) / 2);
    let compared = 0;
    for (let end = first + 50; end <= last + 100; end += 50) {
      const window = frames.filter((frame) => frame.t >= end - windowMs && frame.t < end);
      expect(summarizer.summarize(window, 100)).toEqual(summarizeLiveWindow(window));
      compared++;
    }
    expect(compared).toBeGreaterThan(3);
    expect(summarizeLiveWindow(frames).peakInflightReads).toBeGreaterThan(0);
  });

  it('returns the same summary object for the same frames', () => {
    const summarizer = new WindowSummarizer();
    const once = summarizer.summarize(frames, 500);
    expect(summarizer.summarize([...frames], 500)).toBe(once);
    expect(summarizer.summarize([], 500).frames).toBe(0);
  });
});
