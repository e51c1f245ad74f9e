import { bucketize, bytesPerReadSeries, type BucketRow, type BytesPerReadPoint } from '@aioscope/core';
import type { IoStatDelta } from '@aioscope/spec';

/**
 * The exact (pg_stat_io) side of the bytes-per-read chart, one row per bucket:
 * - `bulk` and `other`: drawn. Bulk reads (the scans' ring) and every other read, each weighted by
 *   reads over the trailing 10 s (core bytesPerReadSeries), so a second in which a tiny statement
 *   alone flushed a few 8 kB reads cannot pull the scans' line down to 8 kB.
 * - `all`, `interval`, `reads`: shown on hover. All reads over the same 10 s, and the per-second
 *   truth: bytes per read of the reads counted in this bucket alone, and how many there were.
 */
export const EXACT_KEYS = ['bulk', 'other', 'all', 'interval', 'reads'] as const;
const EMPTY = Object.fromEntries(EXACT_KEYS.map((key) => [key, null])) as Record<string, null>;

function reduce(bucket: readonly BytesPerReadPoint[]): Record<string, number | null> {
  // The trailing window as of the newest delta in the bucket; the bucket's own reads summed.
  const newest = bucket[bucket.length - 1] as BytesPerReadPoint;
  let reads = 0;
  let bytes = 0;
  for (const point of bucket) {
    if (point.interval === null) continue;
    reads += point.reads;
    bytes += point.interval * point.reads;
  }
  return {
    bulk: newest.bulk,
    other: newest.other,
    all: newest.weighted,
    interval: reads > 0 ? bytes / reads : null,
    reads,
  };
}

/**
 * `deltas` may reach before `fromT`: the window of the first buckets then counts the reads flushed
 * just before the chart's left edge, as it did when those buckets were the newest.
 */
export function exactBytesPerReadRows(
  deltas: readonly IoStatDelta[],
  range: { fromT: number; toT: number; bucketMs: number },
): BucketRow[] {
  const rows = bucketize(bytesPerReadSeries(deltas), { ...range, reduce, empty: EMPTY });
  // pg_stat_io comes at 1 Hz into 1 s buckets: a late tick leaves one bucket without a delta and
  // the next with two. The weighted lines hold through such a bucket rather than break; a longer
  // silence (no stat sample) stays a gap. Per-second values are never invented.
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i] as BucketRow;
    const previous = rows[i - 1] as BucketRow;
    const hadDelta = (candidate: BucketRow): boolean => candidate.reads !== null;
    if (hadDelta(row) || !hadDelta(previous)) continue;
    rows[i] = { ...row, bulk: previous.bulk ?? null, other: previous.other ?? null, all: previous.all ?? null };
  }
  return rows;
}
