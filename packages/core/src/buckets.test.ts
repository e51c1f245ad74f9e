import { describe, expect, it } from 'vitest';
import { appendBounded, trimBefore } from './bounded.ts';
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
});
