import { useMemo, useState } from 'react';
import { BucketRows, type BucketOptions, type BucketRow } from '@aioscope/core';

export type BucketReducer<T> = Pick<BucketOptions<T>, 'reduce' | 'empty'>;

/**
 * A chart's rows of `items` over `domain`: each finished bucket is reduced once and kept (core
 * BucketRows), so a window that moved by one bucket reduces one bucket, and an unchanged window
 * gives the same array (the chart's memo holds). `reducer` must keep its identity between renders
 * (a module constant or a memo): a new reducer starts over.
 */
export function useBucketRows<T extends { t: number }>(
  items: readonly T[],
  domain: readonly [number, number],
  bucketMs: number,
  reducer: BucketReducer<T>,
): readonly BucketRow[] {
  // State, not a memo: React may drop a memo's value, and with it every kept bucket.
  const [kept, setKept] = useState(() => ({ reducer, rows: new BucketRows(reducer) }));
  let current = kept;
  if (kept.reducer !== reducer) {
    current = { reducer, rows: new BucketRows(reducer) };
    setKept(current);
  }
  const [fromT, toT] = domain;
  return useMemo(() => current.rows.rows(items, { fromT, toT, bucketMs }), [current, items, fromT, toT, bucketMs]);
}
