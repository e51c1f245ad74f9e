import { describe, expect, it } from 'vitest';
import { diffIoCounters, parseStatIoRows, type IoCounters, type StatIoQueryRow } from './ioStats.ts';
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
