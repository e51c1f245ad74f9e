import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAdapter as createPostgresAdapter } from '@socket.io/postgres-adapter';
import { createAdapter as createRedisStreamsAdapter } from '@socket.io/redis-streams-adapter';
import pg from 'pg';
import { createClient } from 'redis';
import { Server, type ServerOptions } from 'socket.io';
import { io as connectSocket, type Socket as ClientSocket } from 'socket.io-client';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import type { LiveFrame, LiveSnapshot, ProcessView } from '@aioscope/spec';
import { roomOf } from '../../apps/server/src/live/liveHub.ts';
import { connectLiveAdapter } from '../../apps/server/src/live/redisAdapter.ts';
import { startRedis, type RunningRedis } from '../../apps/server/test/support/replicaFleet.ts';
import { startTestPostgres, TEST_DATA_ROOT } from '../../apps/server/test/support/testPostgres.ts';
import { log, sleep, using, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { postmasterPid, treeCpuSeconds } from './processTree.ts';
import { SelfCpuMeter } from './proc.ts';
import { fmt, fmtSummary, percentiles, summarize } from './stats.ts';

/**
 * Issue 25 asks to choose the live adapter between replicas by measuring: Redis sharded pub/sub
 * (@socket.io/redis-adapter's sharded adapter, one channel per room: what --adapter runs), Redis
 * streams (@socket.io/redis-streams-adapter, one stream for all rooms: the earlier choice) or
 * PostgreSQL (@socket.io/postgres-adapter on the store: LISTEN/NOTIFY, with payloads over NOTIFY's
 * 8000 bytes written to a table). Socket.io servers in this process stand for an owning replica, a
 * non-owning one whose viewers watch every target, and a third replica with no viewer, with the
 * events a replica relays: every target's frames at 20 Hz and processes at 2 Hz from the owner to
 * the other's viewers, and one snapshot asked across a second (a viewer joining there). The same
 * recorded payloads go through each engine in turn (A/B/C/A/B/C), and the engine's CPU, this
 * process's CPU, the owner → viewer latency, what arrived and what the third replica had to
 * decode for nobody are measured per window.
 */
const FULL = { targets: 60, viewers: 100, seconds: 30 };
const QUICK = { targets: 12, viewers: 30, seconds: 10 };
const RATE_HZ = 20;
const PROCESSES_HZ = 2;

type Engine = 'redis-sharded' | 'redis-streams' | 'postgres';

interface Relay {
  owner: Server;
  other: Server;
  otherPort: number;
  /** Adapter messages the replica without viewers received so far. */
  bystanderMessages(): number;
  /** The engine's process tree (redis-server, or the store's postmaster and its backends). */
  enginePid: number;
  close(): Promise<void>;
}

interface EngineWindow {
  engine: Engine;
  seconds: number;
  engineCpuPercent: number;
  nodeCpuPercent: number;
  latencyP95Ms: number;
  latencyP50Ms: number;
  /** Frames a viewer got over frames sent to its targets. */
  deliveredShare: number;
  snapshotP95Ms: number;
  snapshotsAnswered: number;
  snapshotsAsked: number;
  /** Adapter messages a second the replica without viewers received (and decoded). */
  bystanderMessagesPerSecond: number;
}

function listen(server: HttpServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** An owning server, another one whose viewers watch every target, and a third with no viewer. */
async function serverTrio(
  adapters: [ServerOptions['adapter'], ServerOptions['adapter'], ServerOptions['adapter']],
): Promise<Pick<Relay, 'owner' | 'other' | 'otherPort' | 'bystanderMessages'> & { close(): Promise<void> }> {
  const [ownerHttp, otherHttp, bystanderHttp] = [createServer(), createServer(), createServer()];
  const owner = new Server(ownerHttp, { adapter: adapters[0] });
  const other = new Server(otherHttp, { adapter: adapters[1] });
  const bystander = new Server(bystanderHttp, { adapter: adapters[2] });
  // As a replica that does not sample the target answers: null (a request waits for every replica).
  bystander.on('snapshotOf', (_targetId: string, answer: (s: null) => void) => answer(null));
  // Every adapter of these engines is a ClusterAdapter: each message it receives goes through onMessage.
  const adapter = bystander.of('/').adapter as unknown as { onMessage: (...args: unknown[]) => unknown };
  let received = 0;
  const onMessage = adapter.onMessage.bind(adapter);
  adapter.onMessage = (...args: unknown[]) => {
    received += 1;
    return onMessage(...args);
  };
  await Promise.all([listen(ownerHttp), listen(bystanderHttp)]);
  return {
    owner,
    other,
    otherPort: await listen(otherHttp),
    bystanderMessages: () => received,
    close: async () => void (await Promise.all([owner.close(), other.close(), bystander.close()])),
  };
}

async function redisRelay(redis: RunningRedis, kind: 'sharded' | 'streams'): Promise<Relay> {
  const adapterLog = { info: () => undefined, warn: (message: string) => log(`adapter: ${message}`) };
  // Sharded: what --adapter runs, connected as the server connects it.
  const lives =
    kind === 'sharded'
      ? await Promise.all([0, 1, 2].map(() => connectLiveAdapter(redis.url, { wait: false, log: adapterLog })))
      : [];
  const clients = kind === 'streams' ? [0, 1, 2].map(() => createClient({ url: redis.url })) : [];
  await Promise.all(clients.map((client) => client.connect()));
  const adapterOf = (i: number): ServerOptions['adapter'] =>
    lives[i]?.adapter ?? createRedisStreamsAdapter(clients[i] as ReturnType<typeof createClient>);
  const trio = await serverTrio([adapterOf(0), adapterOf(1), adapterOf(2)]);
  return {
    ...trio,
    enginePid: redis.pid() ?? 0,
    close: async () => {
      await trio.close();
      await Promise.all([...lives.map((live) => live.close()), ...clients.map((client) => client.quit())]);
    },
  };
}

async function postgresRelay(config: pg.PoolConfig, enginePid: number): Promise<Relay> {
  const [first, second, third] = [new pg.Pool(config), new pg.Pool(config), new pg.Pool(config)];
  const pools = [first, second, third];
  for (const pool of pools) pool.on('error', (error) => log(`adapter pool: ${error.message}`));
  await first.query(
    'CREATE TABLE IF NOT EXISTS socket_io_attachments (id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)',
  );
  const trio = await serverTrio([
    createPostgresAdapter(first),
    createPostgresAdapter(second),
    createPostgresAdapter(third),
  ]);
  return {
    ...trio,
    enginePid,
    close: async () => {
      await trio.close();
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

interface Payloads {
  frames: LiveFrame[];
  processLists: { t: number; processes: ProcessView[] }[];
  snapshot: LiveSnapshot;
}

/** The busiest recorded server's payloads: the largest frames and processes lists aioscope sends. */
function recordedLoad(): Payloads {
  const all = recordedServers().map((server) => buildPayloads(server));
  const size = (p: Payloads): number => JSON.stringify(p.frames).length / Math.max(1, p.frames.length);
  return all.sort((a, b) => size(b) - size(a))[0] as Payloads;
}

async function measureEngine(
  engine: Engine,
  relay: Relay,
  load: Payloads,
  size: { targets: number; viewers: number; seconds: number },
): Promise<EngineWindow> {
  const targetIds = Array.from({ length: size.targets }, (_, i) => `t${String(i)}`);
  const snapshotsAnswered: number[] = [];
  relay.owner.on('snapshotOf', (targetId: string, answer: (s: LiveSnapshot) => void) =>
    answer({ ...load.snapshot, targetId }),
  );
  relay.other.on('connection', (socket) => {
    socket.on('watch', (ids: string[], done: () => void) => {
      void Promise.resolve(socket.join(ids.map(roomOf))).then(done);
    });
  });
  // Each viewer watches one target (as pages do), the targets taken in turn.
  const latencies: number[] = [];
  const received = new Map<string, number>();
  const viewers: ClientSocket[] = [];
  for (let i = 0; i < size.viewers; i++) {
    const targetId = targetIds[i % targetIds.length] ?? 't0';
    const socket = connectSocket(`http://127.0.0.1:${String(relay.otherPort)}`, {
      transports: ['websocket'],
      forceNew: true,
    });
    viewers.push(socket);
    socket.on('frame', (message: { targetId: string; sentAt: number }) => {
      latencies.push(performance.now() - message.sentAt);
      received.set(message.targetId, (received.get(message.targetId) ?? 0) + 1);
    });
    await new Promise<void>((resolve) => socket.emit('watch', [targetId], resolve));
  }
  // What the adapters need to know each other (heartbeats) before the window.
  await sleep(2_000);
  latencies.length = 0;
  received.clear();
  const viewersOf = new Map<string, number>();
  for (let i = 0; i < size.viewers; i++) {
    const id = targetIds[i % targetIds.length] ?? 't0';
    viewersOf.set(id, (viewersOf.get(id) ?? 0) + 1);
  }
  let sent = 0;
  let tick = 0;
  const snapshotMs: number[] = [];
  let snapshotsAsked = 0;
  const engineBefore = treeCpuSeconds(relay.enginePid);
  const bystanderBefore = relay.bystanderMessages();
  const self = new SelfCpuMeter();
  const started = performance.now();
  const timer = setInterval(() => {
    const frame = load.frames[tick % load.frames.length];
    const processes = load.processLists[Math.floor(tick / (RATE_HZ / PROCESSES_HZ)) % load.processLists.length];
    for (const targetId of targetIds) {
      relay.owner.to(roomOf(targetId)).emit('frame', { targetId, frame, sentAt: performance.now() });
      sent += viewersOf.get(targetId) ?? 0;
      if (tick % (RATE_HZ / PROCESSES_HZ) === 0 && processes !== undefined)
        relay.owner.to(roomOf(targetId)).emit('processes', { targetId, ...processes });
    }
    if (tick % RATE_HZ === 0) {
      snapshotsAsked += 1;
      const asked = performance.now();
      relay.other.serverSideEmit('snapshotOf', targetIds[0], (error: Error | null, answers: unknown[]) => {
        if (error === null && answers.some((answer) => answer !== null)) {
          snapshotMs.push(performance.now() - asked);
          snapshotsAnswered.push(1);
        }
      });
    }
    tick += 1;
  }, 1000 / RATE_HZ);
  await sleep(size.seconds * 1000);
  clearInterval(timer);
  // The last frames on their way.
  await sleep(500);
  const seconds = (performance.now() - started) / 1000;
  const engineCpu = treeCpuSeconds(relay.enginePid) - engineBefore;
  const nodeCpuPercent = self.read().percentOfCore;
  const bystanderMessages = relay.bystanderMessages() - bystanderBefore;
  for (const viewer of viewers) viewer.disconnect();
  relay.owner.removeAllListeners('snapshotOf');
  const gotten = [...received.values()].reduce((a, b) => a + b, 0);
  const latency = percentiles(latencies);
  const snapshots = percentiles(snapshotMs);
  return {
    engine,
    seconds,
    engineCpuPercent: (100 * engineCpu) / seconds,
    nodeCpuPercent,
    latencyP95Ms: latency.p95,
    latencyP50Ms: latency.p50,
    deliveredShare: sent > 0 ? gotten / sent : 0,
    snapshotP95Ms: snapshots.p95,
    snapshotsAnswered: snapshotsAnswered.length,
    snapshotsAsked,
    bystanderMessagesPerSecond: bystanderMessages / seconds,
  };
}

export async function runAdapterChoice(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  const size = options.quick ? QUICK : FULL;
  return using(async (cleanups) => {
    const load = recordedLoad();
    const frameBytes = Buffer.byteLength(JSON.stringify(load.frames[0]));
    const processesBytes = Buffer.byteLength(JSON.stringify(load.processLists[0]));
    const snapshotBytes = Buffer.byteLength(JSON.stringify(load.snapshot));
    log(
      `adapter: frame ${String(frameBytes)} B, processes ${String(processesBytes)} B, snapshot ${String(snapshotBytes)} B`,
    );
    const redis = await startRedis();
    cleanups.add('redis', () => redis.stop());
    const store = await startTestPostgres('bench-adapter-store');
    cleanups.add('store', () => store.stop());
    const storePid = postmasterPid(path.join(TEST_DATA_ROOT, 'bench-adapter-store'));
    const engines: Engine[] = ['redis-sharded', 'redis-streams', 'postgres'];
    const order: Engine[] = [...engines, ...engines];
    const windows: EngineWindow[] = [];
    for (const engine of order) {
      const relay =
        engine === 'postgres'
          ? await postgresRelay(store.connectionConfig, storePid)
          : await redisRelay(redis, engine === 'redis-sharded' ? 'sharded' : 'streams');
      try {
        windows.push(await measureEngine(engine, relay, load, size));
        log(`adapter ${engine}: ${JSON.stringify(windows.at(-1))}`);
      } finally {
        await relay.close();
      }
    }
    writeResult('adapter-choice', { size, frameBytes, processesBytes, snapshotBytes, windows });
    const of = (engine: Engine, get: (w: EngineWindow) => number, decimals = 1): string =>
      fmtSummary(summarize(windows.filter((w) => w.engine === engine).map(get)), decimals);
    const row = (engine: Engine): string =>
      `${engine}: engine ${of(engine, (w) => w.engineCpuPercent)} % of a core (${fmt(
        summarize(windows.filter((w) => w.engine === engine).map((w) => w.engineCpuPercent)).median / size.targets,
        2,
      )} % per target), this process ${of(engine, (w) => w.nodeCpuPercent)} %, owner → viewer p95 ${of(
        engine,
        (w) => w.latencyP95Ms,
      )} ms, delivered ${of(engine, (w) => 100 * w.deliveredShare)} %, snapshot asked across p95 ${of(
        engine,
        (w) => w.snapshotP95Ms,
      )} ms, a replica with no viewer received ${of(engine, (w) => w.bystanderMessagesPerSecond, 0)} messages/s`;
    return [
      {
        measurement: 'adapter choice',
        condition: `${String(size.targets)} targets' frames at ${String(RATE_HZ)} Hz (${String(frameBytes)} B) and processes at ${String(PROCESSES_HZ)} Hz (${String(processesBytes)} B) relayed to ${String(size.viewers)} viewers on another server (a third has none), a ${String(Math.round(snapshotBytes / 1024))} kB snapshot asked across each second; ${String(size.seconds)} s windows, ${order.join('/')}`,
        result: engines.map(row).join('; '),
        target: 'choose the cheaper engine at this load',
        verdict: 'n/a',
      },
    ];
  }, parent);
}
