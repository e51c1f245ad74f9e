import { KeptBuckets } from './keptBuckets.ts';

// Exported from here: the package's index lists this module, and the two belong together.
export { indexAtOrAfter, KeptBuckets } from './keptBuckets.ts';

/** A chart row: a real timestamp (bucket start, epoch ms) and named values; null draws a gap. */
export type BucketRow = { t: number } & Record<string, number | null>;

export interface BucketOptions<T> {
  fromT: number;
  toT: number;
  bucketMs: number;
  reduce: (bucket: readonly T[]) => Record<string, number | null>;
  empty: Record<string, null>;
}

type Reducer<T> = Pick<BucketOptions<T>, 'reduce' | 'empty'>;

function rowOf<T>({ reduce, empty }: Reducer<T>): (bucket: readonly T[], t: number) => BucketRow {
  return (bucket, t) => ({ t, ...(bucket.length > 0 ? reduce(bucket) : empty) });
}

/**
 * Groups time-ordered items into fixed buckets covering [fromT, toT) and reduces each bucket to
 * values. Buckets with no items get `empty` (nulls: the chart draws a gap instead of inventing a
 * zero). Keeps charts at a bounded number of points whatever the sample rate.
 */
export function bucketize<T extends { t: number }>(items: readonly T[], options: BucketOptions<T>): BucketRow[] {
  return [...new KeptBuckets(rowOf(options)).values(items, options.fromT, options.toT, options.bucketMs)];
}

/**
 * bucketize for a chart redrawn as its window moves: each finished bucket is reduced once and kept
 * (KeptBuckets), and an unchanged window returns the same array. One per chart and reducer.
 */
export class BucketRows<T extends { t: number }> {
  private readonly buckets: KeptBuckets<T, BucketRow>;

  constructor(reducer: Reducer<T>) {
    this.buckets = new KeptBuckets(rowOf(reducer));
  }

  rows(items: readonly T[], range: { fromT: number; toT: number; bucketMs: number }): readonly BucketRow[] {
    return this.buckets.values(items, range.fromT, range.toT, range.bucketMs);
  }
}
