import { describe, expect, it } from 'vitest';
import {
  bytesPerReadSeries,
  diffIoCounters,
  parseStatIoGroupKey,
  parseStatIoRows,
  statIoGroupKey,
  type IoCounters,
  type StatIoQueryRow,
} from './ioStats.ts';
import { loadFixture } from './testFixtures.ts';

const fixture = loadFixture<{
  tableBytes: number;
  before: StatIoQueryRow[];
  afterScan: StatIoQueryRow[];
  afterReset: StatIoQueryRow[];
}>('pg18-stat-io.json');

function counters(rows: StatIoQueryRow[]): IoCounters {
  const parsed = parseStatIoRows(rows);
  if (parsed === null) throw new Error('no rows');
  return parsed;
}

describe('pg_stat_io deltas (recorded on PostgreSQL 18)', () => {
  it('sees the cold scan: read bytes within 2 % of the table, about 128 kB per read', () => {
    const delta = diffIoCounters(counters(fixture.before), counters(fixture.afterScan));
    expect(delta.reset).toBe(false);
    const client = delta.byBackendType['client backend'];
    expect(client?.readBytes).toBeGreaterThan(fixture.tableBytes * 0.98);
    expect(client?.readBytes).toBeLessThan(fixture.tableBytes * 1.02);
    expect(delta.bytesPerRead).toBeGreaterThan(100 * 1024);
    expect(delta.intervalSeconds).toBeGreaterThan(0);
  });

  it('keeps each pg_stat_io row apart by backend_type, object and context, adding up to the totals', () => {
    const delta = diffIoCounters(counters(fixture.before), counters(fixture.afterScan));
    const groups = delta.byGroup ?? {};
    const sum = Object.values(groups).reduce((total, group) => total + group.reads, 0);
    expect(sum).toBe(delta.reads);
    const readTime = Object.values(groups).reduce((total, group) => total + (group.readTimeMs ?? 0), 0);
    expect(delta.readTimeMs, 'the scan waited on reads (track_io_timing on)').toBeGreaterThan(0);
    expect(readTime).toBeCloseTo(delta.readTimeMs, 6);
    const scan = groups[statIoGroupKey({ backendType: 'client backend', object: 'relation', context: 'bulkread' })];
    expect(scan?.readBytes).toBeGreaterThan(fixture.tableBytes * 0.98);
    for (const key of Object.keys(groups)) expect(statIoGroupKey(parseStatIoGroupKey(key) ?? ({} as never))).toBe(key);
    expect(parseStatIoGroupKey('client backend/relation')).toBeNull();
  });

  it("treats pg_stat_reset_shared('io') as a reset, never a negative rate", () => {
    const delta = diffIoCounters(counters(fixture.afterScan), counters(fixture.afterReset));
    expect(delta.reset).toBe(true);
    expect(delta.reads).toBe(0);
    expect(delta.readBytes).toBe(0);
    expect(delta.bytesPerRead).toBeNull();
  });

  it('treats a counter going backwards with the same stats_reset (server restart) as a reset', () => {
    const before = counters(fixture.afterScan);
    const after: IoCounters = { ...before, t: before.t + 1000, reads: before.reads - 10 };
    expect(diffIoCounters(before, after).reset).toBe(true);
  });

  it('treats a clock that did not advance as a reset', () => {
    const before = counters(fixture.afterScan);
    expect(diffIoCounters(before, { ...before }).reset).toBe(true);
  });

  it('ignores WAL rows: they are not data-file reads', () => {
    const rows = fixture.afterScan.map((row) =>
      row.object === 'wal' ? { ...row, reads: 1e9, read_bytes: 1e12 } : row,
    );
    expect(counters(rows).reads).toBe(counters(fixture.afterScan).reads);
  });

  it('returns null for no rows', () => {
    expect(parseStatIoRows([])).toBeNull();
  });
});

describe('bytesPerReadSeries (recorded scan, then a tiny statement)', () => {
  const before = parseStatIoRows(fixture.before) as IoCounters;
  const afterScan = parseStatIoRows(fixture.afterScan) as IoCounters;
  const scan = diffIoCounters(before, afterScan);
  // A few 8 kB reads flushed in a second of their own, one second after the scan's.
  const tiny = diffIoCounters(afterScan, {
    ...afterScan,
    t: afterScan.t + 1_000,
    reads: afterScan.reads + 3,
    readBytes: afterScan.readBytes + 3 * 8192,
    byContext: {
      ...afterScan.byContext,
      normal: {
        reads: (afterScan.byContext.normal?.reads ?? 0) + 3,
        readBytes: (afterScan.byContext.normal?.readBytes ?? 0) + 3 * 8192,
      },
    },
  });

  it('splits the recorded scan by context: its reads are bulk reads near 128 kB', () => {
    expect(scan.byContext.bulkread?.reads ?? 0).toBeGreaterThan(0);
    const [point] = bytesPerReadSeries([scan]);
    expect(point?.bulk).toBeGreaterThan(100 * 1024);
    expect(point?.weighted).toBe(scan.bytesPerRead);
  });

  it('keeps the weighted line near the scan when a tiny statement flushes alone; the interval keeps the truth', () => {
    const [, second] = bytesPerReadSeries([scan, tiny]);
    expect(second?.interval).toBe(8192); // the per-second truth, for the hover
    expect(second?.weighted).toBeGreaterThan(100 * 1024); // no dive to 8 kB
    expect(second?.other).toBeLessThan(second?.bulk ?? 0);
  });

  it('does not reach across a reset, nor past its window', () => {
    const reset = diffIoCounters(afterScan, parseStatIoRows(fixture.afterReset) as IoCounters);
    expect(reset.reset).toBe(true);
    const points = bytesPerReadSeries([scan, reset, tiny]);
    expect(points[1]?.weighted).toBeNull();
    expect(points[2]?.weighted).toBe(8192);
    const late = { ...tiny, t: scan.t + 60_000 };
    expect(bytesPerReadSeries([scan, late], 10)[1]?.weighted).toBe(8192);
  });
});
