import { describe, expect, it } from 'vitest';
import { SlidingWindow, appendBounded, trimBefore } from './bounded.ts';
import { bucketize } from './buckets.ts';

describe('bucketize', () => {
  const reduce = (items: readonly { t: number; v: number }[]) => ({ v: items.reduce((s, i) => s + i.v, 0) });

  it('puts items in fixed buckets on real timestamps and leaves empty buckets as gaps', () => {
    const items = [
      { t: 1000, v: 1 },
      { t: 1100, v: 2 },
      { t: 2500, v: 5 },
    ];
    const rows = bucketize(items, { fromT: 1000, toT: 4000, bucketMs: 1000, reduce, empty: { v: null } });
    expect(rows).toEqual([
      { t: 1000, v: 3 },
      { t: 2000, v: 5 },
      { t: 3000, v: null },
    ]);
  });

  it('ignores items before the window and bounds the number of rows', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ t: i * 10, v: 1 }));
    const rows = bucketize(items, { fromT: 5000, toT: 10000, bucketMs: 500, reduce, empty: { v: null } });
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ t: 5000, v: 50 });
  });

  it('returns nothing for an empty or inverted window', () => {
    expect(bucketize([], { fromT: 10, toT: 10, bucketMs: 1, reduce, empty: { v: null } })).toEqual([]);
    expect(bucketize([], { fromT: 0, toT: 10, bucketMs: 0, reduce, empty: { v: null } })).toEqual([]);
  });
});

describe('bounded series', () => {
  it('appendBounded keeps the newest items', () => {
    const items: number[] = [];
    for (let i = 0; i < 10; i++) appendBounded(items, i, 3);
    expect(items).toEqual([7, 8, 9]);
  });

  it('trimBefore drops items older than the window', () => {
    const items = [{ t: 1 }, { t: 5 }, { t: 9 }];
    expect(trimBefore(items, 5)).toEqual([{ t: 5 }, { t: 9 }]);
  });

  it('drops many items at once as exactly as one at a time (a gap, a lower capacity)', () => {
    const series = Array.from({ length: 30 }, (_, t) => ({ t }));
    expect(trimBefore(series, 20)).toEqual(Array.from({ length: 10 }, (_, i) => ({ t: 20 + i })));
    expect(trimBefore(series, 100)).toEqual([]);
    const numbers = Array.from({ length: 50 }, (_, i) => i);
    expect(appendBounded(numbers, 50, 10)).toEqual([41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
  });

  it('keeps a sliding window over many ticks, the front dropped one item per tick', () => {
    const items: { t: number }[] = [];
    for (let t = 0; t < 5_000; t++) {
      appendBounded(items, { t }, 3_000);
      trimBefore(items, t - 2_400);
    }
    expect(items).toHaveLength(2_401);
    expect(items[0]).toEqual({ t: 2_599 });
    expect(items.at(-1)).toEqual({ t: 4_999 });
  });

  it('SlidingWindow keeps what appendBounded and trimBefore keep, tick after tick', () => {
    const window = new SlidingWindow<{ t: number }>(3_000, 2_400);
    const reference: { t: number }[] = [];
    // The span binds first (one item per unit of t), then a gap of 1,000 drops as many at once, then
    // past 6,000 five items per unit of t make the capacity bind.
    let t = 0;
    for (let i = 0; i < 9_000; i++) {
      t += i === 3_000 ? 1_000 : i > 6_000 ? 0.2 : 1;
      window.push({ t });
      appendBounded(reference, { t }, 3_000);
      trimBefore(reference, t - 2_400);
      if (i % 97 === 0 || i === 3_000) {
        expect(window.length).toBe(reference.length);
        expect(window.newest(50)).toEqual(reference.slice(-50));
      }
    }
    expect(window.newest(10_000)).toEqual(reference);
    expect(window.newest(0)).toEqual([]);
  });
});
