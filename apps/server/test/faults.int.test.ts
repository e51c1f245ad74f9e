import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { Server as SocketServer } from 'socket.io';
import type { IoStatDelta, LiveFrame, TargetStatus } from '@aioscope/spec';
import { DATABASE_NAME_SQL, RELATION_SQL } from '@aioscope/core';
import { buildApp } from '../src/app/app.ts';
import { queuedPackets as meteredQueue } from '../src/live/queueMeter.ts';
import { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import { connectViewer, joinAs, type Viewer } from './support/liveViewer.ts';
import { bufferBytes, retainedHeapBytes, sleep, waitUntil } from './support/polling.ts';
import { RawSocketIoClient } from './support/rawSocketIo.ts';
import { TEST_DATA_ROOT, connect, startTestPostgres } from './support/testPostgres.ts';

const MB = 1024 * 1024;

interface Watched {
  monitor: TargetMonitor;
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  statuses: TargetStatus[];
}

/** A started monitor with everything it reports recorded. */
function watch(clientConfig: pg.ClientConfig, sampleRateHz: number): Watched {
  const monitor = new TargetMonitor(
    { id: 'test', name: 'test', kind: 'embedded', clientConfig },
    { sampleRateHz, demoWorkload: false },
  );
  const watched: Watched = { monitor, frames: [], deltas: [], statuses: [] };
  monitor.on('frame', (frame) => watched.frames.push(frame));
  monitor.on('ioDelta', (delta) => watched.deltas.push(delta));
  monitor.on('status', (status) => watched.statuses.push(status));
  monitor.start();
  return watched;
}

/** The HTTP + socket.io app around one monitor, listening on a free loopback port. */
async function serve(monitor: TargetMonitor): Promise<{ app: FastifyInstance; io: SocketServer; port: number }> {
  // Joins unlimited here: the slow-viewer tests re-join on purpose to fill the socket's buffers.
  const { app, io } = await buildApp({
    monitors: new Map([[monitor.id, monitor]]),
    webRoot: '/nonexistent',
    live: { maxJoinsPerWindow: 10_000 },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the app has no port');
  return { app, io, port: address.port };
}

/** What the server holds for one connected socket: engine.io's queue and the websocket's unsent bytes. */
function serverSideBacklog(io: SocketServer, socketId: string): { queuedPackets: number; unsentBytes: number } {
  const socket = io.sockets.sockets.get(socketId);
  if (socket === undefined) return { queuedPackets: 0, unsentBytes: 0 };
  const conn = socket.conn as unknown as {
    writeBuffer: unknown[];
    transport: { socket?: { bufferedAmount?: number } };
  };
  return { queuedPackets: conn.writeBuffer.length, unsentBytes: conn.transport.socket?.bufferedAmount ?? 0 };
}

interface SlowViewer {
  client: RawSocketIoClient;
  /** Its socket.io id on the server. */
  sid: string;
}

/**
 * A raw viewer joined to the target that then stops reading. The kernel's loopback buffers take
 * several MB before the server sees any back-pressure (10 s of 100 Hz frames fit in them), so it
 * re-joins until the server holds unsent bytes for it: from then on every write to it backs up.
 */
async function backedUpViewer(io: SocketServer, port: number): Promise<SlowViewer> {
  const client = await RawSocketIoClient.connect(port);
  const connectReply = client.messages.find((m) => m.startsWith('40{')) ?? '40{}';
  const sid = (JSON.parse(connectReply.slice(2)) as { sid?: string }).sid ?? '';
  client.send('420["joinTarget",{"targetId":"test"}]');
  await client.waitForMessage((m) => m.startsWith('430[{"ok":true}]'), 5_000, 'the raw join ack');
  await client.waitForMessage((m) => m.startsWith('42["snapshot"'), 5_000, 'the raw snapshot');
  client.pauseReading();
  await waitUntil(
    () => {
      if (serverSideBacklog(io, sid).unsentBytes > 0) return true;
      client.send('42["joinTarget",{"targetId":"test"}]');
      return false;
    },
    15_000,
    'the server to hold unsent bytes for the paused viewer',
    20,
  );
  return { client, sid };
}

const isStrictlyIncreasing = (values: number[]): boolean => values.every((v, i) => i === 0 || v > (values[i - 1] ?? v));

describe('faults against a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startTestPostgres('faults');
    // The admin session must never hang on a stopped backend: both timeouts bound it.
    admin = await connect(server, { statement_timeout: 2_000, query_timeout: 4_000 });
  });

  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it('resumes after the server restarts mid-stream, leaving a gap rather than inventing frames', async () => {
    const name = 'faults-restart';
    let target = await startTestPostgres(name);
    const port = target.port;
    const { monitor, frames, deltas } = watch(target.connectionConfig, 20);
    try {
      await waitUntil(() => monitor.currentStatus().state === 'live' && frames.length >= 10, 10_000, 'live frames');
      // One pg_stat_io delta before the restart, so the stat tick has a baseline to (not) diff across.
      await waitUntil(() => deltas.length >= 1, 5_000, 'a first pg_stat_io delta');

      await target.stop();
      const stoppedAt = Date.now();
      await waitUntil(
        () => monitor.currentStatus().state === 'reconnecting' && (monitor.currentStatus().message ?? '') !== '',
        5_000,
        "state 'reconnecting' with a reason",
      );
      // The outage itself, a fixed wait on purpose: long enough for several reconnection attempts
      // and a missed stat tick, which is what the recovery below is measured after.
      await sleep(1_500);

      const restartBegan = Date.now();
      target = await EmbeddedPostgresServer.start({ rootDir: path.join(TEST_DATA_ROOT, name), port, settings: {} });
      const readyAt = Date.now();
      // Reconnection backoff tops out at 1 s (its steps: monitorRules.test.ts), so 'live' comes within
      // 3 s of the server being ready: the next attempt, then a connection and a first sample, which
      // a busy machine may hold up. An uncapped backoff would be waiting 3.2 s or more by now.
      await waitUntil(() => monitor.currentStatus().state === 'live', 3_000, "'live' within 3 s of the restart");
      expect(monitor.currentStatus().message).toBeNull();

      await waitUntil(() => frames.filter((f) => f.t >= readyAt).length >= 10, 5_000, 'frames after the restart');
      // A delta needs a fresh baseline after reconnecting: two stat ticks.
      await waitUntil(() => deltas.some((d) => d.t >= readyAt), 5_000, 'a pg_stat_io delta after the restart');

      for (const delta of deltas) {
        expect(delta.reads).toBeGreaterThanOrEqual(0);
        expect(delta.readBytes).toBeGreaterThanOrEqual(0);
        expect(delta.readTimeMs).toBeGreaterThanOrEqual(0);
      }
      const times = frames.map((f) => f.t);
      expect(isStrictlyIncreasing(times), 'frames in time order').toBe(true);
      // No frame can come from a server that was not running.
      expect(times.filter((t) => t > stoppedAt && t < restartBegan)).toEqual([]);
      const lastBefore = Math.max(...times.filter((t) => t <= stoppedAt));
      const firstAfter = Math.min(...times.filter((t) => t > stoppedAt));
      expect(firstAfter - lastBefore, 'the gap spans the outage').toBeGreaterThan(restartBegan - stoppedAt);
    } finally {
      await monitor.stop();
      await target.stop();
    }
  });

  it('skips ticks instead of piling up queries while its backends are stopped (SIGSTOP), then recovers', async () => {
    const { monitor, frames, statuses } = watch(server.connectionConfig, 20);
    const stopped: number[] = [];
    const isNameLookup = (query: string): boolean =>
      [DATABASE_NAME_SQL, RELATION_SQL].some((sql) => sql.startsWith(query) && query !== '');
    const aioscopeSessions = async (): Promise<{ pid: number; state: string | null; query: string }[]> =>
      (
        await admin.query<{ pid: number; state: string | null; query: string }>(
          `SELECT pid, state, left(query, 60) AS query FROM pg_stat_activity WHERE application_name = 'aioscope'`,
        )
      ).rows;
    try {
      await waitUntil(() => monitor.currentStatus().state === 'live' && frames.length >= 10, 10_000, 'live frames');
      // The fast and the stat session both exist once the first stat tick ran.
      await waitUntil(async () => (await aioscopeSessions()).length >= 2, 5_000, 'both monitoring sessions');
      const pids = (await aioscopeSessions()).map((row) => row.pid);
      const heapBefore = retainedHeapBytes();
      const skippedBefore = monitor.currentStatus().skippedTicks;

      for (const pid of pids) {
        process.kill(pid, 'SIGSTOP');
        stopped.push(pid);
      }
      const stoppedAt = Date.now();
      let maxActive = 0;
      let maxSessions = 0;
      let maxReplacements = 0;
      // Which sessions they were when most replacements existed: a failure names them.
      let atMost = '';
      const observe = async (): Promise<void> => {
        const sessions = await aioscopeSessions();
        // The relation-name lookups (their own pools) may open while stopped too: not replacements.
        const replacements = sessions.filter((s) => !pids.includes(s.pid) && !isNameLookup(s.query)).length;
        if (replacements > maxReplacements) {
          const stoppedNote = (pid: number): string => (pids.includes(pid) ? ' (stopped)' : '');
          atMost = sessions.map((s) => `${s.pid}${stoppedNote(s.pid)} ${s.state ?? '-'}: ${s.query}`).join('; ');
        }
        maxSessions = Math.max(maxSessions, sessions.length);
        maxReplacements = Math.max(maxReplacements, replacements);
        maxActive = Math.max(maxActive, sessions.filter((s) => s.state === 'active').length);
      };
      while (Date.now() - stoppedAt < 4_000) {
        await observe();
        await sleep(100);
      }
      for (const pid of stopped.splice(0)) process.kill(pid, 'SIGCONT');
      const continuedAt = Date.now();

      await waitUntil(
        async () => {
          await observe();
          return monitor.currentStatus().state === 'live' && frames.some((f) => f.t > continuedAt);
        },
        10_000,
        "'live' with fresh frames after SIGCONT",
        100,
      );
      const skipped = monitor.currentStatus().skippedTicks - skippedBefore;
      // 4 s at 20 Hz is 80 slots; the client-side query timeout (3 s) ends the hung tick first.
      expect(skipped, 'ticks skipped while the backend was stopped').toBeGreaterThanOrEqual(20);
      expect(maxActive, 'active aioscope queries: at most one per session').toBeLessThanOrEqual(3);
      // An abandoned session (the fast one, perhaps the stat one) is replaced once, not again and
      // again. How many were stopped varies: the relation-name lookups keep their own small pools,
      // open or not by then (one CI run stopped 4 and saw 1 replacement).
      expect(maxReplacements, `new aioscope sessions while stopped: ${atMost}`).toBeLessThanOrEqual(2);
      // The viewer is told the server stopped answering, with a reason.
      const reported = statuses.filter((s) => s.since >= stoppedAt && s.state !== 'live');
      expect(reported.length, 'a non-live status while the backends were stopped').toBeGreaterThan(0);
      expect(reported.every((s) => (s.message ?? '') !== '')).toBe(true);
      const heapGrowth = retainedHeapBytes() - heapBefore;
      expect(heapGrowth, `heap growth ${(heapGrowth / MB).toFixed(1)} MB`).toBeLessThan(50 * MB);
      // Reported for the record: abandoned backends stay until they run again and see the closed socket.
      console.info(
        `SIGSTOP: skipped ${skipped} ticks, ${pids.length} sessions stopped, at most ${maxReplacements} new, ${maxSessions} in all, ${maxActive} active`,
      );
    } finally {
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // already gone
        }
      }
      await monitor.stop();
    }
  });

  it('degrades to no pg_aios, without disconnecting, when pg_read_all_stats is revoked while running', async () => {
    await admin.query(`CREATE ROLE watcher LOGIN PASSWORD 'x'`);
    await admin.query('GRANT pg_read_all_stats TO watcher');
    const { monitor, frames, deltas } = watch({ ...server.connectionConfig, user: 'watcher', password: 'x' }, 20);
    try {
      await waitUntil(
        () => frames.filter((f) => f.inflight !== null).length >= 5 && deltas.length >= 1,
        10_000,
        'frames with pg_aios and a first delta, as watcher',
      );
      expect(monitor.currentStatus()).toMatchObject({ state: 'live', message: null });

      await admin.query('REVOKE pg_read_all_stats FROM watcher');
      const revokedAt = Date.now();
      await waitUntil(
        () =>
          frames.some((f) => f.t > revokedAt && f.inflight === null) &&
          monitor.currentStatus().state === 'live' &&
          /GRANT pg_read_all_stats/.test(monitor.currentStatus().message ?? ''),
        5_000,
        'frames without pg_aios and a status that says to GRANT pg_read_all_stats',
      );
      const firstDegraded = frames.find((f) => f.t > revokedAt && f.inflight === null)?.t ?? Infinity;
      await waitUntil(() => frames.filter((f) => f.t > firstDegraded).length >= 10, 3_000, 'more degraded frames');
      expect(frames.filter((f) => f.t >= firstDegraded).every((f) => f.inflight === null && f.newReads === null)).toBe(
        true,
      );
      await waitUntil(() => deltas.some((d) => d.t > revokedAt), 5_000, 'pg_stat_io deltas after the revoke');
    } finally {
      await monitor.stop();
      await admin.query('DROP ROLE IF EXISTS watcher');
    }
  });

  it('gives a viewer that reconnects a snapshot that fills the time it was away, in order', async () => {
    const { monitor, frames } = watch(server.connectionConfig, 20);
    const { app } = await serve(monitor);
    const viewers: Viewer[] = [];
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const first = await connectViewer(url);
      viewers.push(first);
      const joined = await joinAs(first, 'test');
      expect(joined.reply).toEqual({ ok: true });
      expect(joined.snapshot?.targetId).toBe('test');
      await waitUntil(() => first.frames.length >= 10, 5_000, 'live frames for the first viewer');

      first.close();
      const lastSeen = first.frames.at(-1)?.frame.t ?? 0;
      const awayFrom = Date.now();
      // A fixed wait on purpose: the time away is the gap the rejoining viewer's snapshot must fill.
      await sleep(2_000);
      const awayUntil = Date.now();

      const second = await connectViewer(url);
      viewers.push(second);
      const rejoined = await joinAs(second, 'test');
      expect(rejoined.reply).toEqual({ ok: true });
      const snapshotTimes = (rejoined.snapshot?.frames ?? []).map((f) => f.t);
      expect(isStrictlyIncreasing(snapshotTimes), 'snapshot frames in time order').toBe(true);
      const duringAbsence = snapshotTimes.filter((t) => t > awayFrom && t < awayUntil);
      expect(duringAbsence.length, 'frames from the 2 s away').toBeGreaterThan(0);
      // Continuity: the snapshot starts at or before what the viewer last saw, and from there it is
      // the monitor's own history, frame for frame (however often a busy machine let it sample).
      expect(snapshotTimes).toContain(lastSeen);
      const fromLastSeen = snapshotTimes.filter((t) => t >= lastSeen);
      expect(fromLastSeen).toEqual(
        frames.map((f) => f.t).filter((t) => t >= lastSeen && t <= (snapshotTimes.at(-1) ?? 0)),
      );

      const snapshotEnd = snapshotTimes.at(-1) ?? 0;
      await waitUntil(
        () => second.frames.some((f) => f.frame.t > snapshotEnd),
        3_000,
        'live frames after the snapshot',
      );
    } finally {
      for (const viewer of viewers) viewer.close();
      await app.close();
      await monitor.stop();
    }
  });

  // Regression (was a bug in apps/server/src/live/liveHub.ts, createLiveHub): 'processes' and 'frame' are emitted
  // volatile in the same synchronous run of TargetMonitor.fastTick (processes listeners first,
  // then record(frame)). The first volatile send marks engine.io's websocket transport
  // non-writable until its write callback (next tick), so the frame right after every
  // 'processes' event is discarded for every viewer, healthy or not: ~2 frames/s, 10 % at 20 Hz.
  it('delivers every frame to a healthy viewer (volatile drops only under back-pressure)', async () => {
    const { monitor, frames } = watch(server.connectionConfig, 20);
    const { app } = await serve(monitor);
    let viewer: Viewer | undefined;
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      viewer = await connectViewer(url);
      const healthy = viewer;
      expect((await joinAs(healthy, 'test')).reply).toEqual({ ok: true });
      await waitUntil(() => healthy.frames.length >= 5, 5_000, 'first live frames');
      const from = healthy.frames[0]?.frame.t ?? 0;
      await waitUntil(
        () => frames.filter((f) => f.t >= from).length >= 80,
        15_000,
        '80 frames produced (4 s at 20 Hz)',
      );
      const until = frames.at(-1)?.t ?? 0;
      await waitUntil(() => healthy.frames.some((f) => f.frame.t >= until), 2_000, 'the newest frame to arrive');
      const produced = frames.map((f) => f.t).filter((t) => t >= from && t <= until);
      const received = new Set(healthy.frames.map((f) => f.frame.t));
      const missing = produced.filter((t) => !received.has(t));
      expect(produced.length).toBeGreaterThanOrEqual(40);
      expect(missing.length, `frames lost on an idle loopback viewer out of ${produced.length}`).toBe(0);
    } finally {
      viewer?.close();
      await app.close();
      await monitor.stop();
    }
  });

  it('keeps a slow viewer that stops reading from slowing others or growing the heap', async () => {
    const { monitor, frames } = watch(server.connectionConfig, 100);
    const { app, io, port } = await serve(monitor);
    let normal: Viewer | undefined;
    let slow: SlowViewer | undefined;
    try {
      await waitUntil(() => frames.length >= 300, 10_000, '3 s of frames at 100 Hz, so a snapshot is large');
      normal = await connectViewer(`http://127.0.0.1:${port}`);
      const healthy = normal;
      expect((await joinAs(healthy, 'test')).reply).toEqual({ ok: true });
      slow = await backedUpViewer(io, port);
      const { client, sid } = slow;

      const heapBefore = retainedHeapBytes();
      const buffersBefore = bufferBytes();
      const queuedBefore = serverSideBacklog(io, sid).queuedPackets;
      const windowStart = Date.now();
      const normalStart = healthy.frames.length;
      const producedStart = frames.length;
      let maxQueued = 0;
      const meterDisagreements: string[] = [];
      while (Date.now() - windowStart < 10_000) {
        const queued = serverSideBacklog(io, sid).queuedPackets;
        maxQueued = Math.max(maxQueued, queued);
        // The hub counts queued packets from engine.io's public events; engine.io's private
        // writeBuffer is the truth it must match, so an upgrade that changes either fails here.
        const socket = io.sockets.sockets.get(sid);
        const metered = socket === undefined ? 0 : meteredQueue(socket);
        if (metered !== queued) meterDisagreements.push(`${metered} metered vs ${queued} queued`);
        await sleep(250);
      }
      const seconds = (Date.now() - windowStart) / 1000;
      const normalRate = (healthy.frames.length - normalStart) / seconds;
      const producedRate = (frames.length - producedStart) / seconds;
      const heapGrowth = retainedHeapBytes() - heapBefore;
      const bufferGrowth = bufferBytes() - buffersBefore;
      console.info(
        `slow viewer: normal ${normalRate.toFixed(1)}/s of ${producedRate.toFixed(1)}/s produced; ` +
          `slow socket queue ${queuedBefore} -> max ${maxQueued} packets; ` +
          `heap +${(heapGrowth / MB).toFixed(1)} MB, buffers +${(bufferGrowth / MB).toFixed(1)} MB`,
      );

      expect(healthy.disconnects).toEqual([]);
      // Against what the monitor produced, not a fixed rate: a loaded machine samples less often.
      expect(normalRate, 'normal viewer frames/s against frames produced').toBeGreaterThanOrEqual(producedRate * 0.95);
      expect(heapGrowth, 'server heap growth').toBeLessThan(30 * MB);
      expect(bufferGrowth, 'Buffer memory growth').toBeLessThan(30 * MB);
      // ~1,000 frames were produced in the window: they were dropped for the slow socket, not queued.
      expect(maxQueued - queuedBefore, 'packets queued for the slow socket during 10 s').toBeLessThan(20);
      expect(maxQueued, 'the slow socket has a queue to measure').toBeGreaterThan(0);
      expect(meterDisagreements, 'the public-event queue meter matches engine.io').toEqual([]);

      // Once it reads again it gets live frames again.
      const seen = client.messages.length;
      client.resumeReading();
      await waitUntil(
        () => client.messages.slice(seen).some((m) => m.startsWith('42["frame"')),
        5_000,
        'live frames for the slow viewer once it reads again',
      );
    } finally {
      slow?.client.close();
      normal?.close();
      await app.close();
      await monitor.stop();
    }
  });

  // Regression (was a bug in apps/server/src/live/liveHub.ts, joinTarget): every joinTarget emits a full snapshot
  // (up to 1,200 frames, ~230 kB at 300 frames here) with a non-volatile emit. A client that
  // stops reading and keeps sending 37-byte join requests makes engine.io queue one snapshot per
  // request in its writeBuffer (heap strings), without bound: 300 joins, ~10 kB sent, queue
  // ~70 MB. The live frames are protected by volatile; snapshots are not.
  it('does not queue a snapshot per join for a viewer that stops reading and keeps joining', async () => {
    const { monitor, frames } = watch(server.connectionConfig, 100);
    const { app, io, port } = await serve(monitor);
    let slow: SlowViewer | undefined;
    try {
      await waitUntil(() => frames.length >= 300, 10_000, '3 s of frames at 100 Hz, so a snapshot is large');
      slow = await backedUpViewer(io, port);
      const { client, sid } = slow;
      const heapBefore = retainedHeapBytes();
      const queuedBefore = serverSideBacklog(io, sid).queuedPackets;
      const joins = 300;
      for (let i = 0; i < joins; i++) client.send('42["joinTarget",{"targetId":"test"}]');
      // The server reads the requests even while it cannot write: wait until it has handled them all
      // (each one queues a packet) or, when fixed, until the queue has stayed still for a second.
      let last = -1;
      let stillSince = Date.now();
      await waitUntil(
        () => {
          const queued = serverSideBacklog(io, sid).queuedPackets;
          if (queued !== last) [last, stillSince] = [queued, Date.now()];
          return queued - queuedBefore >= joins || Date.now() - stillSince > 1_000;
        },
        8_000,
        'the server to handle the joins',
        50,
      );
      const queued = serverSideBacklog(io, sid).queuedPackets - queuedBefore;
      const heapGrowth = retainedHeapBytes() - heapBefore;
      console.info(`re-joining slow viewer: ${queued} packets queued, heap +${(heapGrowth / MB).toFixed(1)} MB`);
      expect(queued, 'packets queued for a viewer that does not read').toBeLessThan(20);
      expect(heapGrowth, 'server heap growth').toBeLessThan(30 * MB);
    } finally {
      slow?.client.close();
      await app.close();
      await monitor.stop();
    }
  });
});
