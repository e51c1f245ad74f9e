import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import {
  FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL,
  FAST_TICK_WITH_DETAILS_SQL,
  PROCESS_DETAILS_SQL,
  parseDetailsColumn,
  parseFastTickRow,
  parseProcessDetails,
  summarizeLiveWindow,
  type FastTickQueryRow,
  type ProcessDetailsQueryRow,
} from '@aioscope/core';
import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import { DEMO_TABLE } from '@aioscope/core';
import { ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../src/demo/demoTable.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import { sleep, waitUntil } from './support/polling.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

const TABLE_BYTES = 256 * 1024 * 1024;
/** An idle backend may hold its pg_stat_io counters up to its 10 s idle flush timeout. */
const STAT_FLUSH_WAIT_MS = 15_000;

describe('sampler against a real PostgreSQL 18 during a cold scan', () => {
  let server: EmbeddedPostgresServer;
  let setup: pg.Client;
  let table: DemoTableInfo;

  beforeAll(async () => {
    server = await startTestPostgres('sampler');
    setup = await connect(server);
    table = await ensureDemoTable(setup, TABLE_BYTES, (relative) => server.resolveDataPath(relative));
  });

  afterAll(async () => {
    await setup?.end();
    await server?.stop();
  });

  it('sees 128 kB readv I/Os in flight, busy io workers, and a pg_stat_io delta matching the table', async () => {
    const monitor = new TargetMonitor(
      { id: 'test', name: 'test', kind: 'embedded', clientConfig: server.connectionConfig },
      { sampleRateHz: 50, demoWorkload: false },
    );
    const frames: LiveFrame[] = [];
    const deltas: IoStatDelta[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.on('ioDelta', (delta) => deltas.push(delta));
    monitor.start();
    const scanner = await connect(server);
    try {
      await scanner.query('SET max_parallel_workers_per_gather = 0');
      // Connected, settings read, and a first pg_stat_io baseline taken (a delta needs two readings),
      // so the scans below land in deltas of their own.
      await waitUntil(
        () => monitor.currentStatus().state === 'live' && monitor.summary().server !== null && deltas.length >= 1,
        15_000,
        'live, server info read and a first pg_stat_io delta',
      );
      // The postmaster's start time, by which a restart on the same version is recognised.
      const { rows } = await setup.query<{ ms: number }>(
        'SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000)::float8 AS ms',
      );
      expect(monitor.summary().server?.startedAt).toBe(rows[0]?.ms);

      const residency = await makeDemoTableCold(setup, table);
      expect(residency).toBe(0);
      const scanStartedAt = frames.at(-1)?.t ?? 0;
      // Two cold scans, so the sampler has time to catch reads in flight on fast storage.
      await scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`);
      await makeDemoTableCold(setup, table);
      await scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`);

      const scanFrames = frames.filter((frame) => frame.t >= scanStartedAt);
      const sixteenBlockReads = scanFrames.reduce((sum, f) => sum + (f.newReads?.blocksHistogram[16] ?? 0), 0);
      expect(sixteenBlockReads, 'readv I/Os of 16 blocks = 131072 bytes').toBeGreaterThan(0);
      expect(Math.max(...scanFrames.map((f) => f.inflight?.total.count ?? 0))).toBeGreaterThan(0);
      const summary = summarizeLiveWindow(scanFrames);
      expect(summary.workerBusyFraction ?? 0, 'io workers busy during the scan').toBeGreaterThan(0);

      const deadline = Date.now() + STAT_FLUSH_WAIT_MS;
      const scannedBytes = (): number =>
        deltas
          .filter((delta) => delta.t >= scanStartedAt && !delta.reset)
          .reduce((sum, delta) => sum + (delta.byBackendType['client backend']?.readBytes ?? 0), 0);
      while (scannedBytes() < table.relationBytes * 2 * 0.98 && Date.now() < deadline) await sleep(250);
      const expected = table.relationBytes * 2;
      expect(Math.abs(scannedBytes() - expected) / expected, 'pg_stat_io delta vs 2 x table size').toBeLessThan(0.02);
      expect(deltas.every((delta) => delta.reads >= 0 && delta.readBytes >= 0)).toBe(true);
    } finally {
      await scanner.end();
      await monitor.stop();
    }
  });

  it('reads the processes’ details in the tick as PROCESS_DETAILS_SQL reads them, a scanning backend among them', async () => {
    const reader = await connect(server);
    const scanner = await connect(server);
    const byPid = (rows: readonly ProcessDetailsQueryRow[]) =>
      rows.map(parseProcessDetails).sort((a, b) => (a?.pid ?? 0) - (b?.pid ?? 0));
    try {
      await makeDemoTableCold(setup, table);
      await scanner.query('SET max_parallel_workers_per_gather = 0');
      const scan = scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`);
      // Ended by the finally below should an expectation fail first.
      scan.catch(() => undefined);
      const scannerPid = (scanner as unknown as { processID: number }).processID;
      let sawScanner = false;
      for (let round = 0; round < 400 && !sawScanner; round++) {
        for (const withDetails of [FAST_TICK_WITH_DETAILS_SQL, FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL]) {
          // One transaction: both reads see the same snapshot of every backend's activity (state,
          // query; wait events are read live, which is why the tick's processes are not compared).
          await reader.query('BEGIN');
          const row = (await reader.query<FastTickQueryRow>(withDetails)).rows[0];
          if (row === undefined) throw new Error('the tick returned no row');
          const sample = parseFastTickRow(row);
          const pids = sample.processes.map((process) => process.pid);
          const separate = await reader.query<ProcessDetailsQueryRow>(PROCESS_DETAILS_SQL, [pids]);
          await reader.query('COMMIT');
          expect(pids.length, 'io workers at least').toBeGreaterThan(0);
          expect(byPid(parseDetailsColumn(row.details))).toEqual(byPid(separate.rows));
          if (pids.includes(scannerPid)) {
            sawScanner = true;
            const details = byPid(parseDetailsColumn(row.details)).find((entry) => entry?.pid === scannerPid);
            expect(details?.database).toBe(server.connectionConfig.database);
            expect(details?.queryPreview).toContain(DEMO_TABLE);
          }
        }
      }
      expect(sawScanner, 'the scanning backend was in a tick').toBe(true);
      await scan;
    } finally {
      await scanner.end();
      await reader.end();
    }
  });

  it("turns pg_stat_reset_shared('io') into a reset interval, never a negative delta", async () => {
    const monitor = new TargetMonitor(
      { id: 'test', name: 'test', kind: 'embedded', clientConfig: server.connectionConfig },
      { sampleRateHz: 5, demoWorkload: false },
    );
    const deltas: IoStatDelta[] = [];
    monitor.on('ioDelta', (delta) => deltas.push(delta));
    monitor.start();
    try {
      await waitUntil(() => deltas.length >= 1, 15_000, 'a first pg_stat_io delta (the baseline)');
      await setup.query(`SELECT pg_stat_reset_shared('io')`);
      await waitUntil(() => deltas.some((delta) => delta.reset), 15_000, 'the interval across the reset');
      expect(deltas.every((delta) => delta.reads >= 0 && delta.readBytes >= 0 && delta.readTimeMs >= 0)).toBe(true);
    } finally {
      await monitor.stop();
    }
  });
});
