/** Index of the first item with `t >= time` in items sorted by t, searching from index `from` on. */
export function indexAtOrAfter(items: readonly { t: number }[], time: number, from = 0): number {
  let low = from;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((items[mid] as { t: number }).t < time) low = mid + 1;
    else high = mid;
  }
  return low;
}

interface Kept<T, R> {
  count: number;
  first: T | undefined;
  last: T | undefined;
  value: R;
}

/**
 * Per-bucket results kept from one call to the next, keyed by the bucket's start time, so a
 * window that moves by one bucket computes one bucket, not all of them. A bucket is recognised as
 * unchanged when it holds the same number of items and the same first and last item objects:
 * items are immutable and time-ordered, so a bucket changes only by growing at its end (the
 * bucket still filling) or by being replaced with new objects (a reconnect's snapshot, another
 * recorded range), and both change one of the three. Buckets that leave the window are dropped.
 */
export class KeptBuckets<T extends { t: number }, R> {
  private kept = new Map<number, Kept<T, R>>();
  private keptBucketMs = 0;
  private lastValues: readonly R[] = [];

  constructor(private readonly compute: (bucket: readonly T[], bucketStart: number) => R) {}

  /**
   * One result per bucket of [fromT, toT), the first starting at fromT floored to a bucket
   * boundary. When no bucket changed, the very array of the last call: memos downstream hold.
   */
  values(items: readonly T[], fromT: number, toT: number, bucketMs: number): readonly R[] {
    if (!(bucketMs > 0) || toT <= fromT) return [];
    if (bucketMs !== this.keptBucketMs) {
      this.kept.clear();
      this.keptBucketMs = bucketMs;
    }
    const start = Math.floor(fromT / bucketMs) * bucketMs;
    const kept = new Map<number, Kept<T, R>>();
    const values: R[] = [];
    let unchanged = true;
    let index = indexAtOrAfter(items, start);
    for (let bucketStart = start; bucketStart < toT; bucketStart += bucketMs) {
      const end = indexAtOrAfter(items, bucketStart + bucketMs, index);
      const count = end - index;
      const first = count > 0 ? items[index] : undefined;
      const last = count > 0 ? items[end - 1] : undefined;
      const previous = this.kept.get(bucketStart);
      const entry =
        previous !== undefined && previous.count === count && previous.first === first && previous.last === last
          ? previous
          : { count, first, last, value: this.compute(items.slice(index, end), bucketStart) };
      kept.set(bucketStart, entry);
      if (this.lastValues[values.length] !== entry.value) unchanged = false;
      values.push(entry.value);
      index = end;
    }
    this.kept = kept;
    if (unchanged && values.length === this.lastValues.length) return this.lastValues;
    this.lastValues = values;
    return values;
  }
}
