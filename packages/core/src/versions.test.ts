import { describe, expect, it } from 'vitest';
import { buildLiveFrame, parseFastTickRow, type FastTickQueryRow } from './fastTick.ts';
import { diffIoCounters, parseStatIoRows, type StatIoQueryRow } from './ioStats.ts';
import { workerVerdict } from './saturation.ts';
import { ScanTracker } from './scans.ts';
import { parseCapabilities, parseServerInfo, type ServerInfoQueryRow, type SettingQueryRow } from './settings.ts';
import { FAST_TICK_SQL, FAST_TICK_WITHOUT_AIOS_SQL, fastTickSql, statIoSql } from './sql.ts';
import { loadFixture } from './testFixtures.ts';

/** Fixtures for 16, 17 and 19 are written from the reference, not recorded: see fixtures/README.md. */
describe('PostgreSQL 16 and 17: pg_stat_io only', () => {
  it('reads op_bytes instead of read_bytes before 18', () => {
    expect(statIoSql(160004)).toContain('reads * op_bytes');
    expect(statIoSql(170005)).toContain('reads * op_bytes');
    expect(statIoSql(180004)).toContain('read_bytes::float8');
    expect(statIoSql(180004)).not.toContain('op_bytes');
  });

  it('turns 16-style rows into exact bytes per read', () => {
    const fixture = loadFixture<{ before: StatIoQueryRow[]; after: StatIoQueryRow[] }>('pg16-stat-io.json');
    const before = parseStatIoRows(fixture.before);
    const after = parseStatIoRows(fixture.after);
    if (before === null || after === null) throw new Error('no rows');
    const delta = diffIoCounters(before, after);
    expect(delta.reset).toBe(false);
    expect(delta.bytesPerRead).toBe(8192); // no read combining before 18: one block per read
    expect(delta.byBackendType['client backend']?.reads).toBe(32768);
  });

  it('knows a 17 server has no pg_aios and chooses the fast tick without it', () => {
    const fixture = loadFixture<{ info: ServerInfoQueryRow; settings: SettingQueryRow[] }>('pg17-server-info.json');
    const capabilities = parseCapabilities(fixture.info);
    expect(capabilities).toMatchObject({ hasPgAios: false, canReadPgAios: false, statIoHasBytes: false });
    expect(fastTickSql(capabilities)).toBe(FAST_TICK_WITHOUT_AIOS_SQL);
    expect(FAST_TICK_WITHOUT_AIOS_SQL).not.toContain('pg_aios');
    const info = parseServerInfo(fixture.info, fixture.settings);
    expect(info.ioMethod).toBeNull();
    expect(info.ioCombineLimitBytes).toBeNull();
    expect(info.settings.find((s) => s.name === 'shared_buffers')?.display).toBe('128MB');
  });
});

describe('PostgreSQL 19', () => {
  const fixture = loadFixture<{ info: ServerInfoQueryRow; settings: SettingQueryRow[]; samples: FastTickQueryRow[] }>(
    'pg19-fast-tick.json',
  );

  it('uses the pg_aios fast tick and reads io_min_workers / io_max_workers', () => {
    expect(fastTickSql(parseCapabilities(fixture.info))).toBe(FAST_TICK_SQL);
    const info = parseServerInfo(fixture.info, fixture.settings);
    expect(info.settings.find((s) => s.name === 'io_min_workers')?.value).toBe(2);
    expect(info.settings.find((s) => s.name === 'io_max_workers')?.value).toBe(8);
  });

  it('follows a pool that grows, counts AioWorkerControl waits, and maps the scan', () => {
    let previous = new Set<string>();
    const tracker = new ScanTracker();
    const frames = fixture.samples.map((row) => {
      const sample = parseFastTickRow(row);
      const built = buildLiveFrame(sample, {
        previousIoKeys: previous,
        sampleMs: 1,
        skippedTicks: 0,
        ioMethod: 'worker',
      });
      previous = built.ioKeys;
      built.frame.scans = tracker.update({
        t: sample.t,
        aios: sample.aios ?? [],
        activityByPid: new Map([[4101, 'SELECT']]),
        resolve: () => ({ name: 'public.big', blocks: 4096 }),
        blockSize: 8192,
      });
      return built.frame;
    });
    expect(frames.map((f) => f.ioWorkers.length)).toEqual([2, 3]);
    expect(frames[0]?.waits['io worker:AioWorkerControl']).toBe(1);
    expect(frames[1]?.newReads?.count).toBe(1); // io 10 generation 4 is new; io 9 generation 11 was seen
    // First seen at block 512 with no query_start to judge by: the scan is taken to start there.
    expect(frames[1]?.scans?.[0]?.startBlock).toBe(512);
    expect(frames[1]?.scans?.[0]?.frontier).toBe(544);
    const verdict = workerVerdict(frames, 'worker');
    expect(verdict.evidence.join(' ')).toMatch(/3 io workers/);
  });
});
