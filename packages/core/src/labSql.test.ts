import { describe, expect, it } from 'vitest';
import * as labSql from './labSql.ts';
import { QUERY_TAG } from './sql.ts';

describe('the lab SQL', () => {
  it('tags every statement, so a DBA finds the lab in pg_stat_activity', () => {
    const texts = [
      ...Object.entries(labSql)
        .filter(([name, value]) => name.endsWith('_SQL') && typeof value === 'string')
        .map(([, value]) => value as string),
      labSql.labExplainSql('aioscope_lab.scan_64mb', 180004),
      labSql.labWarmUpSql('aioscope_lab.scan_64mb'),
      ...labSql.labDropSql('aioscope_lab.scan_64mb'),
    ];
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) expect(text.startsWith(QUERY_TAG), text).toBe(true);
  });

  it('names tables from a whole number only', () => {
    expect(labSql.labTableName(64)).toBe('aioscope_lab.scan_64mb');
    expect(() => labSql.labTableName(1.5)).toThrow(/not a lab table size/);
    expect(() => labSql.labTableName(Number.NaN)).toThrow(/not a lab table size/);
  });

  it('asks for per-node I/O in EXPLAIN only from PostgreSQL 19', () => {
    expect(labSql.labExplainSql('t.t', 180004)).toContain('(ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)');
    expect(labSql.labExplainSql('t.t', 190000)).toContain('IO, FORMAT JSON');
  });

  it('sets only the session settings the experiment schema allows, as parameters', () => {
    expect(labSql.labSessionSettingParams({ io_combine_limit: 1, effective_io_concurrency: undefined })).toEqual([
      ['io_combine_limit', '1'],
    ]);
    expect(() => labSql.labSessionSettingParams({ work_mem: 1 })).toThrow(/not a lab session setting/);
    expect(() => labSql.labSessionSettingParams({ io_combine_limit: 1.5 })).toThrow(/not a lab session setting/);
  });

  it('gives a whole-table statement a time budget that grows with the table and never cuts a 4 MB/s scan', () => {
    expect(labSql.labScanTimeoutMs(16)).toBe(64_000);
    expect(labSql.labScanTimeoutMs(4096)).toBe(60_000 + 1_024_000);
    for (const mb of [16, 256, 4096]) {
      const secondsAt4MbPerSecond = mb / 4;
      expect(labSql.labScanTimeoutMs(mb)).toBeGreaterThanOrEqual(secondsAt4MbPerSecond * 1000);
      expect(labSql.labBuildTimeoutMs(mb)).toBeGreaterThan(labSql.labScanTimeoutMs(mb));
    }
    expect(labSql.LAB_CONTROL_TIMEOUT_MS).toBeLessThan(labSql.labScanTimeoutMs(16));
  });
});
