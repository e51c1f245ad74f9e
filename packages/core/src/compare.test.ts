import { describe, expect, it } from 'vitest';
import { sideOf17, sideOfRecording } from '@aioscope/core/testing';
import {
  BLOCKS_COUNTED_BEFORE_18,
  MIN_STAT_READS,
  compareSide,
  settingsCaveatOf,
  sideLabel,
  type CompareSideInput,
} from './compare.ts';

describe('compareSide', () => {
  it('measures the recorded 18 cold scan: ~128 kB and ~16 blocks per read, reads in flight, io workers busy', () => {
    const side = compareSide(sideOfRecording('pg18.4-embedded-worker'));
    expect(side.serverVersion).toBe('18.4');
    expect(side.unavailable).toEqual([]);
    expect(side.figures.bytesPerRead?.value).toBeCloseTo(127606.46, 1);
    expect(side.figures.blocksPerRead?.value).toBeCloseTo(127606.46 / 8192, 3);
    expect(side.figures.bytesPerRead?.rate).toBe('1 Hz');
    expect(side.figures.readsInFlightMean?.value).toBeGreaterThan(1);
    expect(side.figures.readsInFlightPeak?.value).toBeGreaterThanOrEqual(side.figures.readsInFlightMean?.value ?? 0);
    const busy = side.figures.ioWorkerBusyShare?.value ?? -1;
    expect(busy).toBeGreaterThan(0);
    expect(busy).toBeLessThanOrEqual(1);
    expect(side.waits.reduce((sum, wait) => sum + wait.share, 0)).toBeCloseTo(1, 6);
    expect(side.scans?.[0]?.relation).toBe('aioscope_demo.scan_me');
    expect(side.scans?.[0]?.bytes).toBeGreaterThan(0);
  });

  it('says of 17 that bytes per read cannot be measured, and never reports 8 kB as a read size', () => {
    const side = compareSide(sideOf17());
    expect(side.figures.bytesPerRead).toMatchObject({ value: null, reason: BLOCKS_COUNTED_BEFORE_18 });
    expect(side.figures.blocksPerRead?.value).toBeNull();
    expect(side.figures.readsInFlightMean?.reason).toBe('pg_aios exists from PostgreSQL 18');
    expect(side.unavailable.map((u) => u.figure)).toContain('bytesPerRead');
    // The bytes are right on 17 (reads × op_bytes), so throughput is measured.
    expect(side.figures.readThroughput?.value).toBeGreaterThan(0);
  });

  it('reads throughput over the recorded time: a range twice as long around the same samples reads the same', () => {
    const recorded = sideOfRecording('pg18.4-embedded-worker');
    const once = compareSide(recorded).figures.readThroughput?.value;
    const longer = compareSide({ ...recorded, from: recorded.from - (recorded.to - recorded.from) });
    expect(once).toBeGreaterThan(0);
    expect(longer.figures.readThroughput?.value).toBeCloseTo(once ?? 0, 6);
  });

  it('under io_uring has no io workers to be busy, and says why', () => {
    const side = compareSide(sideOfRecording('pg18.6-io_uring'));
    expect(side.figures.ioWorkerBusyShare).toMatchObject({
      value: null,
      reason: 'no io workers: io_method = io_uring',
    });
  });

  it('without pg_aios grants says the role cannot read it', () => {
    const side = compareSide(sideOfRecording('pg18.6-io_uring-no-grants'));
    expect(side.figures.readsInFlightMean?.reason).toMatch(/pg_read_all_stats/);
  });

  it('leaves scans out of a range longer than raw frames, saying why', () => {
    const side = compareSide({ ...sideOfRecording('pg18.4-embedded-worker'), raw: null });
    expect(side.scans).toBeNull();
    expect(side.scansReason).toMatch(/at most 15 min/);
  });
});

describe('compareSide on pg_stat_io that has not counted the scans yet', () => {
  const recordedScan = (): CompareSideInput => sideOfRecording('pg18.4-embedded-worker');
  const withStat = (input: CompareSideInput, reads: number, bytesFactor: number): CompareSideInput => ({
    ...input,
    points: input.points.map((point) => ({
      ...point,
      statReads: point.statReads > 0 ? reads : 0,
      statReadBytes: point.statReadBytes * bytesFactor,
    })),
  });

  it(`gives no read size from fewer than ${MIN_STAT_READS} counted reads`, () => {
    const side = compareSide(withStat(recordedScan(), 10, 1));
    expect(side.figures.bytesPerRead?.value).toBeNull();
    expect(side.figures.bytesPerRead?.reason).toMatch(/^pg_stat_io counted only 10 reads: too few/);
  });

  it('gives no throughput when the scan map saw far more read than pg_stat_io counted', () => {
    const counted = compareSide(recordedScan());
    expect(counted.figures.readThroughput?.value).toBeGreaterThan(0);
    const scanned = (counted.scans ?? []).reduce((sum, scan) => sum + scan.bytes, 0);
    expect(scanned).toBeGreaterThan(8 * 1024 * 1024);
    const uncounted = compareSide(withStat(recordedScan(), 2066, 0.01));
    expect(uncounted.figures.readThroughput?.value).toBeNull();
    expect(uncounted.figures.readThroughput?.reason).toMatch(
      /^scans read .* but pg_stat_io counted .*: a statement's reads/,
    );
  });
});

describe('settingsCaveatOf', () => {
  it('warns when the server restarted or settings changed during the range, not otherwise', () => {
    expect(settingsCaveatOf([{ t: 0, kind: 'connected', message: '' }])).toBeNull();
    expect(settingsCaveatOf([{ t: 0, kind: 'settingsChanged', message: 'io_combine_limit' }])).toMatch(
      /^its settings changed during this range \(.* UTC\): settings are shown as they were at its start$/,
    );
    expect(settingsCaveatOf([{ t: 0, kind: 'serverRestarted', message: '' }])).toMatch(/the server restarted/);
  });
});

describe('sideLabel', () => {
  it('names the target, the range in UTC and its length', () => {
    const from = Date.UTC(2026, 11, 2, 3, 10);
    expect(sideLabel('reporting', from, from + 15 * 60_000)).toBe(
      'reporting, 2026-12-02 03:10:00 → 03:25:00 UTC (15 min)',
    );
  });
});
