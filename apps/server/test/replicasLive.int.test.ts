import { createClient } from 'redis';
import { io as connectSocket, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  targetSummarySchema,
  type ClientToServerEvents,
  type JoinTargetReply,
  type ServerToClientEvents,
} from '@aioscope/spec';
import { roomOf } from '../src/live/liveHub.ts';
import { REMOTE_ANSWER_TIMEOUT_MS } from '../src/live/remoteTargets.ts';
import { sleep, waitUntil } from './support/polling.ts';
import { freePort } from './support/testPostgres.ts';
import { startRedis, startReplicaFleet, twoReplicasOneTargetEach, type ReplicaFleet } from './support/replicaFleet.ts';

/**
 * Two replicas relaying the live view through a real Redis (--adapter): a viewer on the replica
 * that does not sample a target gets its snapshot and frames from the owner, and frames again from
 * the survivor after the owner is killed with -9.
 */
const TARGET_IDS = ['orders', 'billing'];

type Viewer = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * Messages the replicas published for one target's room in `ms`: the sharded adapter gives each
 * room its own channel (its name is the adapter's channel prefix, namespace and room).
 */
async function roomMessagesDuring(redisUrl: string, targetId: string, ms: number): Promise<number> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  let messages = 0;
  try {
    await client.sSubscribe(`socket.io#/#${roomOf(targetId)}#`, () => void (messages += 1));
    await sleep(ms);
    return messages;
  } finally {
    await client.close();
  }
}

/** A viewer of one target: the snapshot's newest frame time and every live frame's time. */
function watch(url: string, targetId: string): { socket: Viewer; snapshots: number[][]; frames: number[] } {
  const socket: Viewer = connectSocket(url, { transports: ['websocket'], reconnection: false });
  const snapshots: number[][] = [];
  const frames: number[] = [];
  socket.on('snapshot', (snapshot) => {
    if (snapshot.targetId === targetId) snapshots.push(snapshot.frames.map((f) => f.t));
  });
  socket.on('frame', ({ targetId: id, frame }) => {
    if (id === targetId) frames.push(frame.t);
  });
  return { socket, snapshots, frames };
}

function join(socket: Viewer, targetId: string): Promise<JoinTargetReply> {
  return new Promise((resolve) => {
    const send = (): void => void socket.emit('joinTarget', { targetId }, resolve);
    if (socket.connected) send();
    else socket.once('connect', send);
  });
}

describe('replicas relaying the live view through Redis', () => {
  let fleet: ReplicaFleet;
  let redis: { url: string; stop: () => void };
  const sockets: Viewer[] = [];

  beforeAll(async () => {
    [fleet, redis] = await Promise.all([startReplicaFleet('replicas-live', TARGET_IDS), startRedis()]);
  });

  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await fleet?.stop();
    redis?.stop();
  });

  it('serves a target owned by the other replica live, and again from the survivor after a kill -9', async () => {
    const { a, b, onA: target } = await twoReplicasOneTargetEach(fleet, redis.url);
    const [owner, other] = [a, b];
    // The other replica lists the target it does not sample, live, so the page can open it there.
    await waitUntil(
      async () => (await fleet.sampled(other.url)).join() === [...TARGET_IDS].sort().join(),
      5_000,
      'every target live on the other replica',
      100,
    );
    const summary = await fetch(new URL(`/api/targets/${target}`, other.url));
    expect(summary.status).toBe(200);
    expect(targetSummarySchema.parse(await summary.json())).toMatchObject({ id: target, status: { state: 'live' } });

    const onOwner = watch(owner.url, target);
    const remote = watch(other.url, target);
    sockets.push(onOwner.socket, remote.socket);
    expect(await join(onOwner.socket, target)).toEqual({ ok: true });
    // Watched on its owner only: its 20 Hz frames are not published to Redis.
    expect(await roomMessagesDuring(redis.url, target, 1_000)).toBe(0);
    expect(await join(remote.socket, target)).toEqual({ ok: true });
    expect(remote.snapshots).toHaveLength(1);
    // A name the targets file does not list is refused at once, not asked of every replica.
    const askedAt = Date.now();
    expect(await join(remote.socket, 'nowhere')).toEqual({ ok: false, error: 'unknown target "nowhere"' });
    expect(Date.now() - askedAt).toBeLessThan(REMOTE_ANSWER_TIMEOUT_MS);
    expect(remote.snapshots[0]?.length).toBeGreaterThan(0);

    await sleep(500);
    const before = { remote: remote.frames.length, onOwner: onOwner.frames.length };
    await sleep(1_000);
    // Through the other replica, as many frames in a second as on the owner (less one or two still
    // in transit), whatever rate a loaded machine samples at (20 Hz when idle).
    const onOwnerInSecond = onOwner.frames.length - before.onOwner;
    expect(onOwnerInSecond).toBeGreaterThanOrEqual(5);
    expect(remote.frames.length - before.remote).toBeGreaterThanOrEqual(onOwnerInSecond - 2);
    // Now watched on the other replica: its events go through Redis.
    expect(await roomMessagesDuring(redis.url, target, 1_000)).toBeGreaterThanOrEqual(5);
    // The same frames in the same order as on the owner, over the time both were watching.
    const from = Math.max(onOwner.frames[0] ?? Infinity, remote.frames[0] ?? Infinity);
    const to = Math.min(onOwner.frames.at(-1) ?? -Infinity, remote.frames.at(-1) ?? -Infinity);
    const within = (ts: number[]): number[] => ts.filter((t) => t >= from && t <= to);
    expect(within(remote.frames).length).toBeGreaterThan(10);
    expect(within(remote.frames)).toStrictEqual(within(onOwner.frames));

    owner.run.child.kill('SIGKILL');
    await owner.run.exited;
    const killedAt = Date.now();
    // The owner's viewer reconnects to the survivor; the target is live there once it took it over.
    const again = watch(other.url, target);
    sockets.push(again.socket);
    await waitUntil(
      async () => {
        const reply = await join(again.socket, target);
        if (!reply.ok) await sleep(2_000); // at most 5 joins per 10 s per socket
        return reply.ok;
      },
      10_000,
      `a join of ${target} on the survivor`,
      0,
    );
    await waitUntil(
      () => again.frames.some((t) => t > killedAt) && remote.frames.some((t) => t > killedAt),
      10_000,
      `frames of ${target} from the survivor`,
      50,
    );
    expect(Date.now() - killedAt).toBeLessThan(10_000);
  });

  it('refuses to start when the Redis cannot be reached, in one line', async () => {
    const run = await fleet.spawn('unreachable', ['--adapter', `redis://127.0.0.1:${String(await freePort())}`]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(/live adapter Redis at redis:\/\/127\.0\.0\.1:\d+\/? cannot be used: .*ECONNREFUSED/);
    expect(run.stderr().trim().split('\n'), run.stderr()).toHaveLength(1);
  });
});
