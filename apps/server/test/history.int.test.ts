import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { rollup, stepStart } from '@aioscope/core';
import type { HistoryExtent, IoStatDelta, LiveFrame } from '@aioscope/spec';
import { ensureDemoTable, makeDemoTableCold } from '../src/demo/demoTable.ts';
import { sharedAuditCache } from '../src/metrics/auditCache.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { runCli, waitForUrl } from './support/cliProcess.ts';
import { freshDataDir, historyConfig, present, startWatching, urlOf } from './support/historyTarget.ts';
import { sleep, waitUntil } from './support/polling.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

const TABLE_BYTES = 48 * 1024 * 1024;

/** What a viewer of the live socket receives: the payload as JSON carries it. */
const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('history recorder on a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startTestPostgres('history');
    admin = await connect(server);
  });

  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await server?.stop();
  });

  it('keeps a cold scan across a restart: the frames the monitor emitted, roll-ups that agree, events', async () => {
    const dataDir = await freshDataDir('history-record');
    const config = historyConfig(server, dataDir);
    const first = await startWatching(config);
    const monitor = present([...first.running.monitors.values()][0], 'a monitor');
    const frames: LiveFrame[] = [];
    const deltas: IoStatDelta[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.on('ioDelta', (delta) => deltas.push(delta));
    try {
      const table = await ensureDemoTable(admin, TABLE_BYTES, (relative) => server.resolveDataPath(relative));
      await admin.query('SET max_parallel_workers_per_gather = 0');
      // A cold scan of 48 MB may fall between two 20 Hz samples: scan until one is seen reading.
      for (let attempt = 0; attempt < 5 && !frames.some((frame) => (frame.newReads?.count ?? 0) > 0); attempt++) {
        await makeDemoTableCold(admin, table);
        await admin.query(`SELECT count(*) FROM ${table.name}`);
        await sleep(200);
      }
      await waitUntil(() => deltas.some((delta) => delta.reads > 0), 20_000, 'the scan in pg_stat_io');
      // Roll-ups are compared for whole seconds before the last one: sample on until a whole second
      // has passed after the scan's last one.
      const lastScanFrame = present(
        frames.findLast((frame) => (frame.newReads?.count ?? 0) > 0),
        'a frame of the scan',
      );
      await waitUntil(
        () => (frames.at(-1)?.t ?? 0) >= stepStart(lastScanFrame.t) + 2_000,
        10_000,
        'a whole second sampled after the scan',
      );
    } finally {
      await first.running.close();
    }
    const scanFrames = frames.filter((frame) => (frame.newReads?.count ?? 0) > 0);
    expect(scanFrames.length).toBeGreaterThan(0);

    const restartedAt = Date.now();
    const again = await startWatching(config);
    try {
      // Everything before the restart is the first run's. The recorder closes before the monitor,
      // so the test may have seen a last frame or two that the store has not: the store holds
      // exactly the frames the monitor emitted, in order, up to its newest one, the scan included.
      const from = present(frames[0], 'a frame').t;
      const stored = await again.history.frames({ from, to: restartedAt });
      expect(stored.frames).toStrictEqual(overTheWire(frames.slice(0, stored.frames.length)));
      expect(stored.frames.length).toBeGreaterThanOrEqual(frames.indexOf(present(scanFrames.at(-1), 'the scan')) + 1);
      frames.splice(stored.frames.length);
      const to = present(frames.at(-1), 'a frame').t + 1;
      const inRange = (delta: IoStatDelta): boolean => delta.t >= from && delta.t < to;
      expect(stored.ioDeltas.filter(inRange)).toStrictEqual(overTheWire(deltas.filter(inRange)));
      expect(stored.processes.length).toBeGreaterThan(0);
      // A range's first frames may carry no scan map (5 a second do): the newest before it comes along.
      const withScans = present(
        stored.frames.find((frame) => frame.scans !== undefined),
        'a frame with the scan map',
      );
      const afterScans = await again.history.frames({ from: withScans.t + 1, to });
      expect(afterScans.scansBefore).toStrictEqual(withScans);
      const firstProcesses = present(stored.processes[0], 'a processes snapshot');
      const afterProcesses = await again.history.frames({ from: firstProcesses.t + 1, to });
      expect(afterProcesses.processesBefore).toStrictEqual(firstProcesses);

      // Roll-ups of whole seconds against core's rollup() of the raw frames kept for them (the
      // recorder saw the start of the first second before this test subscribed; the frames it kept
      // for the rest are the ones the monitor emitted, as asserted above).
      const rollFrom = stepStart(from);
      const rollTo = stepStart(to - 1);
      const raw = await again.history.frames({ from: rollFrom, to: rollTo });
      const oneSecond = await again.history.rollups({ from: rollFrom, to: rollTo }, 1_000);
      expect(oneSecond).toStrictEqual(rollup(raw.frames, raw.ioDeltas, rollFrom, rollTo, 1_000));
      expect(oneSecond.some((point) => point.newReads > 0)).toBe(true);
      const fiveSeconds = await again.history.rollups({ from: rollFrom, to: rollTo }, 5_000);
      const expected = rollup(raw.frames, raw.ioDeltas, rollFrom, rollTo, 5_000);
      expect(fiveSeconds.map((p) => [p.t, p.frames, p.newReads, p.statReads, p.readsInFlight.max])).toEqual(
        expected.map((p) => [p.t, p.frames, p.newReads, p.statReads, p.readsInFlight.max]),
      );
      fiveSeconds.forEach((point, index) =>
        expect(point.sampleMs.mean).toBeCloseTo(expected[index]?.sampleMs.mean ?? NaN, 9),
      );

      const connections = async (): Promise<number> =>
        (await again.history.events({ from: 0, to: Date.now() + 60_000 })).filter((e) => e.kind === 'connected').length;
      await waitUntil(async () => (await connections()) >= 2, 10_000, 'the second connected event');
      expect(await connections()).toBe(2);
      const extent = await again.history.extent();
      expect(extent.recording).toEqual({ state: 'recording', reason: null });
      expect(extent.raw?.from).toBeLessThanOrEqual(from);
      expect(extent.bytesOnDisk).toBeGreaterThan(0);
      expect((await again.history.describe()).sampleRateHz).toBe(20);
    } finally {
      await again.running.close();
    }
  });

  it('a restart at another rate marks rateChanged', async () => {
    const dataDir = await freshDataDir('history-rate');
    const first = await startWatching(historyConfig(server, dataDir));
    await waitUntil(async () => (await first.history.extent()).raw !== null, 10_000, 'frames in the store');
    await first.running.close();
    const again = await startWatching(historyConfig(server, dataDir, ['--rate', '50']));
    try {
      await waitUntil(
        async () =>
          (await again.history.events({ from: 0, to: Date.now() + 60_000 })).some((e) => e.kind === 'rateChanged'),
        10_000,
        'the rateChanged event',
      );
      const events = await again.history.events({ from: 0, to: Date.now() + 60_000 });
      expect(events.find((event) => event.kind === 'rateChanged')?.message).toBe('sample rate 20 Hz → 50 Hz');
    } finally {
      await again.running.close();
    }
  });

  it('marks auditChanged when a setting turns an audit finding from pass to warn, and back', async () => {
    const dataDir = await freshDataDir('history-audit');
    const watching = await startWatching(historyConfig(server, dataDir));
    const monitor = present([...watching.running.monitors.values()][0], 'a monitor');
    const audits = sharedAuditCache(monitor);
    const auditEvents = async (): Promise<string[]> =>
      (await watching.history.events({ from: 0, to: Date.now() + 60_000 }))
        .filter((event) => event.kind === 'auditChanged')
        .map((event) => event.message);
    try {
      // The recorder reads the first audit once connected: the baseline, which marks nothing.
      await waitUntil(() => audits.current(false) !== null, 10_000, 'the first audit');
      expect(await auditEvents()).toEqual([]);
      // ALTER SYSTEM writes postgresql.auto.conf: a configuration-file override of 1, the worst leftover.
      await admin.query('ALTER SYSTEM SET effective_io_concurrency = 1');
      await admin.query('SELECT pg_reload_conf()');
      await waitUntil(
        async () => {
          await audits.refresh(); // the settings refresh (30 s) would do the same, later
          return (await auditEvents()).length > 0;
        },
        10_000,
        'the auditChanged event',
      );
      expect(await auditEvents()).toEqual(['audit: effective_io_concurrency pass → warn']);

      await admin.query('ALTER SYSTEM RESET effective_io_concurrency');
      await admin.query('SELECT pg_reload_conf()');
      await waitUntil(
        async () => {
          await audits.refresh();
          return (await auditEvents()).length > 1;
        },
        10_000,
        'the second auditChanged event',
      );
      expect(await auditEvents()).toEqual([
        'audit: effective_io_concurrency pass → warn',
        'audit: effective_io_concurrency warn → pass',
      ]);
    } finally {
      await admin.query('ALTER SYSTEM RESET effective_io_concurrency');
      await admin.query('SELECT pg_reload_conf()');
      await watching.running.close();
    }
    // An audit asked for once the monitor stopped is refused, and opens no session nobody would close.
    await expect(audits.refresh()).resolves.toBeUndefined();
    await expect(monitor.audit()).rejects.toThrow('the monitor of this target has stopped');
    const sessions = await admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'aioscope'",
    );
    expect(Number(sessions.rows[0]?.n)).toBe(0);
  });

  it('after kill -9 of a recording aioscope, the next start opens the store and serves what was written', async () => {
    const dataDir = await freshDataDir('history-kill');
    const run = runCli(['--db', urlOf(server), '--port', '0', '--data-dir', dataDir]);
    const base = await waitForUrl(run);
    // Until the store holds more than the 40 frames asserted below (2 s at 20 Hz), a batch to spare.
    await waitUntil(
      async () => {
        const [target] = (await (await fetch(new URL('/api/targets', base))).json()) as { id: string }[];
        if (target === undefined) return false;
        const extent = (await (
          await fetch(new URL(`/api/targets/${target.id}/history`, base))
        ).json()) as HistoryExtent;
        return extent.raw !== null && extent.raw.to - extent.raw.from > 3_000;
      },
      30_000,
      'more than 3 s of samples stored',
      250,
    );
    const killedAt = Date.now();
    run.child.kill('SIGKILL');
    await run.exited;

    const again = await startWatching(historyConfig(server, dataDir));
    try {
      const extent = await again.history.extent();
      expect(extent.recording.state).toBe('recording');
      const before = await again.history.frames({ from: killedAt - 10_000, to: killedAt });
      expect(before.frames.length).toBeGreaterThan(40);
      // The batch is written every 500 ms: what was lost is the last unwritten batch (logged, not asserted).
      console.log(
        `kill -9: newest stored frame ${killedAt - present(before.frames.at(-1), 'a stored frame').t} ms before the kill`,
      );
      const times = before.frames.map((frame) => frame.t);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    } finally {
      await again.running.close();
    }
  });
});
