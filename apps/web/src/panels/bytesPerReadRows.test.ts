import { describe, expect, it } from 'vitest';
import { diffIoCounters, parseStatIoRows, type IoCounters } from '@aioscope/core';
import { recordedServers } from '@aioscope/core/testing';
import type { IoStatDelta } from '@aioscope/spec';
import { exactBytesPerReadRows } from './bytesPerReadRows.ts';

// PostgreSQL 18.6 with io_method = io_uring: pg_stat_io before and after a cold parallel scan.
const server = recordedServers().find((candidate) => candidate.name === 'pg18.6-io_uring');
const before = parseStatIoRows(server?.statBefore ?? []) as IoCounters;
const afterScan = parseStatIoRows(server?.statAfter ?? []) as IoCounters;
const scan = diffIoCounters(before, afterScan);
// Two seconds later a tiny statement flushes three 8 kB reads (context normal) in a second of its own.
const tinyReads = 3;
const tiny = diffIoCounters(
  { ...afterScan, t: afterScan.t + 1_000 },
  {
    ...afterScan,
    t: afterScan.t + 2_000,
    reads: afterScan.reads + tinyReads,
    readBytes: afterScan.readBytes + tinyReads * 8192,
    byContext: {
      ...afterScan.byContext,
      normal: {
        reads: (afterScan.byContext.normal?.reads ?? 0) + tinyReads,
        readBytes: (afterScan.byContext.normal?.readBytes ?? 0) + tinyReads * 8192,
      },
    },
  },
);
/** A second in which nothing flushed: the stat tick still comes, 1 Hz, with no reads. */
const quiet = (secondsAfterScan: number): IoStatDelta =>
  diffIoCounters(
    { ...afterScan, t: afterScan.t + (secondsAfterScan - 1) * 1_000 },
    { ...afterScan, t: afterScan.t + secondsAfterScan * 1_000 },
  );
const quiets = new Map(Array.from({ length: 16 }, (_, i) => [i + 1, quiet(i + 1)] as const));
const quietAt = (second: number): IoStatDelta | undefined => quiets.get(second);
const deltas = [scan, quietAt(1), tiny, ...Array.from({ length: 15 }, (_, i) => quietAt(i + 3))].filter(
  (delta): delta is IoStatDelta => delta !== undefined,
);
const BUCKET_MS = 1_000;
const fromT = Math.floor(scan.t / BUCKET_MS) * BUCKET_MS - 5 * BUCKET_MS;
const rows = exactBytesPerReadRows(deltas, { fromT, toT: fromT + 25 * BUCKET_MS, bucketMs: BUCKET_MS });
const rowAt = (t: number): (typeof rows)[number] | undefined => rows.find((row) => row.t <= t && t < row.t + BUCKET_MS);

describe('exact bytes per read on the chart (recorded io_uring scan, then a tiny statement)', () => {
  it('draws the scan near 128 kB in its own bucket, all of it bulk reads', () => {
    const row = rowAt(scan.t);
    expect(row?.bulk).toBeGreaterThan(120 * 1024);
    expect(row?.interval).toBeCloseTo(scan.bytesPerRead ?? 0, 6);
    expect(row?.reads).toBe(scan.reads);
    expect(row?.other).toBeNull();
  });

  it('keeps the scans’ line up when the tiny statement flushes alone; the hover keeps the 8 kB truth', () => {
    const row = rowAt(tiny.t);
    // Before: the drawn line was this bucket's own Δread_bytes / Δreads, 8 kB.
    expect(row?.interval).toBe(8192);
    expect(row?.reads).toBe(tinyReads);
    expect(row?.bulk).toBeGreaterThan(120 * 1024);
    expect(row?.other).toBe(8192);
    expect(row?.all).toBeGreaterThan(120 * 1024);
  });

  it('holds the window for 10 s after the last flush, then draws a gap; no invented per-second value', () => {
    const between = rowAt(scan.t + 1_000);
    expect(between?.bulk).toBeGreaterThan(120 * 1024);
    expect(between?.interval).toBeNull();
    expect(between?.reads).toBe(0);
    expect(rowAt(tiny.t + 11_000)?.bulk ?? null).toBeNull();
    expect(rowAt(scan.t - 2_000)?.all ?? null).toBeNull();
  });

  it('holds the weighted lines through one bucket a late stat tick left empty, not through a longer silence', () => {
    const late = deltas.filter((delta) => delta !== quietAt(5) && delta !== quietAt(7) && delta !== quietAt(8));
    const held = exactBytesPerReadRows(late, { fromT, toT: fromT + 25 * BUCKET_MS, bucketMs: BUCKET_MS });
    const at = (t: number): (typeof held)[number] | undefined =>
      held.find((row) => row.t <= t && t < row.t + BUCKET_MS);
    expect(at(afterScan.t + 5_000)?.bulk).toBeGreaterThan(120 * 1024);
    expect(at(afterScan.t + 5_000)?.reads).toBeNull();
    expect(at(afterScan.t + 8_000)?.bulk ?? null).toBeNull();
  });
});
