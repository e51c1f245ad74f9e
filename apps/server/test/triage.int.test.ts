import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { IoStatDelta, LiveFrame, ProcessView, ScanView } from '@aioscope/spec';
import { DEMO_TABLE } from '@aioscope/core';
import { describeDemoTable, ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../src/demo/demoTable.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import { waitUntil } from './support/polling.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

/**
 * A CPU-heavy predicate (an md5 over ~13 kB per row) keeps completed reads in pg_aios until the
 * backend reaches them, so even a scan's last read lives long enough for a 50 Hz sampler to see
 * it leave. On fast storage a plain count(*) reads faster than any sampler can follow.
 */
const slowScan = (table: string): string =>
  `SELECT count(*) FILTER (WHERE md5(repeat(payload, 64)) LIKE '00%') FROM ${table}`;
/** A second table, so the two scans are two maps rather than one scan riding the other's buffers. */
const SECOND_TABLE = 'aioscope_demo.scan_me_too';
/** Larger than shared_buffers / 4, so the scan uses the bulk-read ring like a big one. */
const TABLE_BYTES = 24 * 1024 * 1024;

function monitorFor(server: EmbeddedPostgresServer, clientConfig: pg.ClientConfig, sampleRateHz = 50): TargetMonitor {
  return new TargetMonitor(
    { id: 'test', name: 'test', kind: 'embedded', clientConfig },
    { sampleRateHz, demoWorkload: false },
  );
}

describe('triage views against a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;
  let table: DemoTableInfo;
  let secondTable: DemoTableInfo;

  beforeAll(async () => {
    server = await startTestPostgres('triage');
    admin = await connect(server);
    table = await ensureDemoTable(admin, TABLE_BYTES, (relative) => server.resolveDataPath(relative));
    await admin.query(`CREATE UNLOGGED TABLE ${SECOND_TABLE} AS SELECT * FROM ${DEMO_TABLE}`);
    await admin.query(`VACUUM (FREEZE) ${SECOND_TABLE}`);
    secondTable = await describeDemoTable(admin, (relative) => server.resolveDataPath(relative), SECOND_TABLE);
  });

  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it('maps two concurrent cold scans, each reaching 100 %, with the relation resolved by name', async () => {
    const monitor = monitorFor(server, server.connectionConfig);
    const frames: LiveFrame[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.start();
    const scanners = await Promise.all([connect(server), connect(server)]);
    try {
      // Without synchronize_seqscans every scan starts at block 0, whatever scans ran before.
      await Promise.all(
        scanners.map((scanner) =>
          scanner.query('SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off'),
        ),
      );
      await waitUntil(() => frames.length > 0, 15_000, 'the first frame');
      await makeDemoTableCold(admin, table);
      expect(await makeDemoTableCold(admin, secondTable)).toBe(0);
      const pids = await Promise.all(
        scanners.map(
          async (scanner) => (await scanner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid,
        ),
      );
      const tables = [DEMO_TABLE, SECOND_TABLE];
      await Promise.all(scanners.map((scanner, index) => scanner.query(slowScan(tables[index] ?? DEMO_TABLE))));
      // A backend may map more than its table: planning the query can read a cold catalog
      // (pg_proc, seen in CI) through the same read path. The last view of each backend's table:
      const lastViews = (): Map<string, ScanView> => {
        const views = new Map<string, ScanView>();
        for (const frame of frames)
          for (const scan of frame.scans ?? []) views.set(`${scan.pid} ${scan.relation.name}`, scan);
        return views;
      };
      // A scan is judged complete once it has had no read in flight for SCAN_IDLE_MS.
      await waitUntil(
        () => {
          const views = lastViews();
          return pids.every((pid, index) => views.get(`${String(pid)} ${String(tables[index])}`)?.completed === true);
        },
        15_000,
        'both scans judged complete on the scan map',
      );
      const finalViews = lastViews();
      for (const [index, pid] of pids.entries()) {
        const scan = finalViews.get(`${String(pid)} ${String(tables[index])}`);
        const mapped = [...finalViews.values()].filter((view) => view.pid === pid).map((view) => view.relation.name);
        expect(scan, `backend ${String(pid)} mapped ${mapped.join(', ')}`).toBeDefined();
        expect(scan?.relation.blocks).toBe([table, secondTable][index]?.blocks);
        expect(scan?.progress, `scan of backend ${String(pid)} reached the end`).toBe(1);
        expect(scan?.completed).toBe(true);
        expect(scan?.activity).toBe('SELECT');
      }
      const lookAheads = frames.flatMap((frame) => (frame.scans ?? []).map((scan) => scan.lookAheadBlocks));
      expect(Math.max(...lookAheads), 'the read stream read ahead').toBeGreaterThan(16);
      const processes = monitor.currentProcesses();
      expect(processes.filter((process) => process.backendType === 'io worker').length).toBe(3);
    } finally {
      await Promise.all(scanners.map((scanner) => scanner.end()));
      await monitor.stop();
    }
  });

  it('labels a VACUUM on the scan map by what the process is doing', async () => {
    const monitor = monitorFor(server, server.connectionConfig, 50);
    const frames: LiveFrame[] = [];
    const seen: ProcessView[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.on('processes', ({ processes }) => seen.push(...processes));
    monitor.start();
    const vacuum = await connect(server);
    try {
      await waitUntil(() => frames.length > 0, 15_000, 'the first frame');
      const vacuumPid = Number((await vacuum.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
      await makeDemoTableCold(admin, table);
      // Throttled by the cost delay so the sampler sees it; every page is read (no skipping). At
      // 2 ms per 100 pages the 3,072 pages took ~0.1-0.3 s, and one CI run on a busy machine saw
      // no sample of it; 10 ms makes it ~0.4-0.6 s, 20 or more samples at 50 Hz.
      await vacuum.query(`SET vacuum_cost_delay = 10; SET vacuum_cost_limit = 200`);
      const vacuumedAt = Date.now();
      await vacuum.query(`VACUUM (DISABLE_PAGE_SKIPPING) ${DEMO_TABLE}`);
      // Frames carry the scan map at 5 Hz: wait for one sampled after the VACUUM ended.
      await waitUntil(
        () => (frames.at(-1)?.t ?? 0) > vacuumedAt && frames.at(-1)?.scans !== undefined,
        5_000,
        'a scan map after the VACUUM',
      );
      // The VACUUM's own backend only: an autovacuum worker may read the freshly filled table as
      // well, labelled as one. Its first scan map may come before the process's details were read
      // (at most every 100 ms), when the label says only 'reading'; never another statement's.
      const vacuumScans = frames
        .flatMap((frame) => frame.scans ?? [])
        .filter((scan) => scan.relation.name === DEMO_TABLE && scan.pid === vacuumPid);
      expect(vacuumScans.length, 'the VACUUM was seen reading').toBeGreaterThan(0);
      const labels = vacuumScans.map((scan) => scan.activity);
      expect(labels.filter((label) => label !== 'VACUUM' && label !== 'reading')).toEqual([]);
      expect(labels.at(-1)).toBe('VACUUM');
      const processes = frames.length > 0 ? monitor.currentProcesses() : [];
      expect(
        processes.every((process) => process.activity !== 'SELECT' || process.backendType !== 'client backend'),
      ).toBe(true);
    } finally {
      await vacuum.end();
      await monitor.stop();
    }
  });

  it('shows a role without pg_read_all_stats the GRANT that fixes pg_aios, while pg_stat_io still works', async () => {
    await admin.query(`DROP ROLE IF EXISTS plain_watcher`);
    await admin.query(`CREATE ROLE plain_watcher LOGIN PASSWORD 'plain-watcher-pw'`);
    const monitor = monitorFor(
      server,
      { ...server.connectionConfig, user: 'plain_watcher', password: 'plain-watcher-pw' },
      10,
    );
    const frames: LiveFrame[] = [];
    const deltas: IoStatDelta[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.on('ioDelta', (delta) => deltas.push(delta));
    monitor.start();
    const scanner = await connect(server);
    try {
      // A first pg_stat_io delta is the baseline: the scan's reads then land in a delta of their own.
      await waitUntil(
        () => monitor.currentStatus().state === 'live' && deltas.length >= 1,
        15_000,
        'live and a first pg_stat_io delta',
      );
      await scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`);
      await waitUntil(() => deltas.some((delta) => delta.reads > 0), 15_000, 'the scan in pg_stat_io');
      const summary = monitor.summary();
      expect(summary.capabilities?.canReadPgAios).toBe(false);
      expect(summary.status.state).toBe('live');
      expect(summary.status.message).toMatch(/GRANT pg_read_all_stats/);
      expect(frames.length).toBeGreaterThan(0);
      expect(frames.every((frame) => frame.inflight === null)).toBe(true);
      expect(
        deltas.some((delta) => delta.reads > 0),
        'pg_stat_io deltas still arrive',
      ).toBe(true);
    } finally {
      await scanner.end();
      await monitor.stop();
    }
  });

  it('works fully under a read-only monitoring role with pg_monitor, as the README documents', async () => {
    await admin.query(`DROP ROLE IF EXISTS monitor_role`);
    await admin.query(`CREATE ROLE monitor_role LOGIN PASSWORD 'monitor-role-pw'`);
    await admin.query(`GRANT pg_monitor TO monitor_role`);
    const monitor = monitorFor(
      server,
      { ...server.connectionConfig, user: 'monitor_role', password: 'monitor-role-pw' },
      20,
    );
    const frames: LiveFrame[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.start();
    try {
      await waitUntil(
        () => monitor.summary().capabilities !== null && frames.length > 0,
        15_000,
        'capabilities read and a first frame',
      );
      const summary = monitor.summary();
      expect(summary.capabilities).toMatchObject({ canReadPgAios: true, canSeeAllActivity: true });
      expect(summary.status).toMatchObject({ state: 'live', message: null });
      expect(frames.some((frame) => frame.inflight !== null)).toBe(true);
      expect(frames.at(-1)?.ioWorkers.length).toBe(3);
      const audit = await monitor.audit();
      expect(audit.findings.length).toBeGreaterThan(3);
      const write = await connect(server, { user: 'monitor_role', password: 'monitor-role-pw' });
      try {
        await expect(write.query(`CREATE TABLE public.should_fail (id int)`)).rejects.toThrow(/permission denied/);
      } finally {
        await write.end();
      }
    } finally {
      await monitor.stop();
    }
  });

  it('flags effective_io_concurrency = 1 set in a configuration file', async () => {
    const monitor = monitorFor(server, server.connectionConfig, 5);
    monitor.start();
    try {
      await admin.query(`ALTER SYSTEM SET effective_io_concurrency = 1`);
      await admin.query(`SELECT pg_reload_conf()`);
      // The reload is asynchronous: the postmaster signals every process, which reread the file.
      const ruleOf = 'effective_io_concurrency_file_override';
      let report = await monitor.audit();
      await waitUntil(
        async () => (report = await monitor.audit()).findings.some((f) => f.rule === ruleOf),
        10_000,
        'the audit to see the reloaded setting',
        250,
      );
      const finding = report.findings.find((f) => f.rule === ruleOf);
      expect(finding?.level).toBe('warn');
      expect(finding?.value).toBe('1');
      expect(finding?.why).toMatch(/worse than 0/);
      expect(finding?.source).toMatch(/postgresql\.auto\.conf/);
    } finally {
      await admin.query(`ALTER SYSTEM RESET effective_io_concurrency`);
      await admin.query(`SELECT pg_reload_conf()`);
      await monitor.stop();
    }
  });
});
