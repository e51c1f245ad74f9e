/** A chart row: a real timestamp (bucket start, epoch ms) and named values; null draws a gap. */
export type BucketRow = { t: number } & Record<string, number | null>;

/**
 * Groups time-ordered items into fixed buckets covering [fromT, toT) and reduces each bucket to
 * values. Buckets with no items get `empty` (nulls: the chart draws a gap instead of inventing a
 * zero). Keeps charts at a bounded number of points whatever the sample rate.
 */
export function bucketize<T extends { t: number }>(
  items: readonly T[],
  options: {
    fromT: number;
    toT: number;
    bucketMs: number;
    reduce: (bucket: readonly T[]) => Record<string, number | null>;
    empty: Record<string, null>;
  },
): BucketRow[] {
  const { fromT, toT, bucketMs, reduce, empty } = options;
  if (!(bucketMs > 0) || toT <= fromT) return [];
  const start = Math.floor(fromT / bucketMs) * bucketMs;
  const rows: BucketRow[] = [];
  let index = 0;
  while (index < items.length && (items[index] as T).t < start) index++;
  for (let bucketStart = start; bucketStart < toT; bucketStart += bucketMs) {
    const bucket: T[] = [];
    while (index < items.length && (items[index] as T).t < bucketStart + bucketMs) {
      bucket.push(items[index] as T);
      index++;
    }
    rows.push({ t: bucketStart, ...(bucket.length > 0 ? reduce(bucket) : empty) });
  }
  return rows;
}
