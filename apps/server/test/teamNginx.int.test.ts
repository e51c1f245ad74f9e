import { io as connectSocket, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetListSchema, type ClientToServerEvents, type ServerToClientEvents } from '@aioscope/spec';
import { startTeamNginx, type RunningNginx } from './support/nginx.ts';
import { sleep, waitUntil } from './support/polling.ts';
import { startRedis, startReplicaFleet, type ReplicaFleet } from './support/replicaFleet.ts';

/**
 * One address for a team: Debian's nginx with deploy/team/nginx.conf in front of two replicas
 * (a shared PostgreSQL 18 store, a real Redis for the live adapter). A viewer of that address sees
 * every target live whichever replica answers, and carries on through it when one is killed -9.
 */
const TARGET_IDS = ['orders', 'billing'];
type Viewer = Socket<ServerToClientEvents, ClientToServerEvents>;

describe('replicas behind nginx', () => {
  let fleet: ReplicaFleet;
  let redis: { url: string; stop: () => void };
  let nginx: RunningNginx;
  const sockets: Viewer[] = [];

  beforeAll(async () => {
    [fleet, redis] = await Promise.all([startReplicaFleet('team-nginx', TARGET_IDS), startRedis()]);
  });

  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await nginx?.stop();
    await fleet?.stop();
    redis?.stop();
  });

  /** Frame times of every target a new viewer of `url` joins. */
  function viewer(url: string): { frames: Map<string, number[]>; joined: Promise<boolean[]> } {
    const socket: Viewer = connectSocket(url, { transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const frames = new Map(TARGET_IDS.map((id) => [id, [] as number[]]));
    socket.on('frame', ({ targetId, frame }) => frames.get(targetId)?.push(frame.t));
    const joined = new Promise<boolean[]>((resolve) =>
      socket.once(
        'connect',
        () =>
          void Promise.all(
            TARGET_IDS.map(
              (targetId) =>
                new Promise<boolean>((done) => socket.emit('joinTarget', { targetId }, (reply) => done(reply.ok))),
            ),
          ).then(resolve),
      ),
    );
    return { frames, joined };
  }

  it('serves every target live through one address, before and after a replica is killed', async () => {
    const a = await fleet.replica('a', ['--adapter', redis.url]);
    const b = await fleet.replica('b', ['--adapter', redis.url]);
    nginx = await startTeamNginx([a, b].map((r) => Number(new URL(r.url).port)));
    const live = async (): Promise<string[]> => {
      const response = await fetch(new URL('/api/targets', nginx.url));
      if (!response.ok) return [];
      return targetListSchema
        .parse(await response.json())
        .filter((t) => t.status.state === 'live')
        .map((t) => t.id)
        .sort();
    };
    await waitUntil(
      async () => (await live()).join() === [...TARGET_IDS].sort().join(),
      30_000,
      'both targets live through nginx',
      200,
    );

    const first = viewer(nginx.url);
    expect(await first.joined).toEqual([true, true]);
    await sleep(1_500);
    for (const id of TARGET_IDS) expect(first.frames.get(id)?.length, id).toBeGreaterThan(15);

    a.run.child.kill('SIGKILL');
    await a.run.exited;
    const killedAt = Date.now();
    // Through the same address: answers keep coming (nginx goes on to the survivor), and a viewer
    // that reconnects sees both targets live again once the survivor took them over.
    await waitUntil(
      async () => (await live()).join() === [...TARGET_IDS].sort().join(),
      15_000,
      'both targets live after the kill',
      200,
    );
    const again = viewer(nginx.url);
    expect(await again.joined).toEqual([true, true]);
    await waitUntil(
      () => TARGET_IDS.every((id) => (again.frames.get(id) ?? []).some((t) => t > killedAt)),
      10_000,
      'frames of both targets after the kill',
      50,
    );
  });
});
