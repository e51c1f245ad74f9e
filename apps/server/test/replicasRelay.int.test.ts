import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditReportSchema, overviewSchema, processDetailSchema, targetListSchema } from '@aioscope/spec';
import { connectViewer, joinAs, type Viewer } from './support/liveViewer.ts';
import { sleep, waitUntil } from './support/polling.ts';
import type { CliRun } from './support/cliProcess.ts';
import { startFreezablePath } from './support/frozenPath.ts';
import { connect } from './support/testPostgres.ts';
import {
  startRedis,
  startReplicaFleet,
  twoReplicasOneTargetEach,
  type ReplicaFleet,
  type RunningRedis,
} from './support/replicaFleet.ts';

/**
 * What a replica relays from the owner of a target it does not sample (--adapter, a real Redis):
 * the processes panel's details and the settings audit, answered by the owner; and when the Redis
 * is lost, its own targets stay live while the others say why they are not, until it is back.
 */
const TARGET_IDS = ['orders', 'billing'];

async function getJson(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(new URL(path, url));
  return { status: response.status, body: await response.json() };
}

describe('a replica relaying what another one samples', () => {
  let fleet: ReplicaFleet;
  let redis: RunningRedis;
  let backend: pg.Client;
  const viewers: Viewer[] = [];
  const pair: CliRun[] = [];

  beforeAll(async () => {
    [fleet, redis] = await Promise.all([startReplicaFleet('replicas-relay', TARGET_IDS), startRedis()]);
    backend = await connect(fleet.watched);
  });

  afterAll(async () => {
    for (const viewer of viewers) viewer.close();
    await backend?.end();
    await fleet?.stop();
    redis?.stop();
  });

  it('serves the owner’s process details and audit, and says why remote targets are not live without Redis', async () => {
    const { a, b, onA: remoteTarget, onB: localTarget } = await twoReplicasOneTargetEach(fleet, redis.url);
    pair.push(a.run, b.run);
    await waitUntil(
      async () => (await fleet.sampled(b.url)).join() === [...TARGET_IDS].sort().join(),
      10_000,
      'both targets live on b',
      100,
    );

    // The overview is the team's whichever replica answers: a row per target, the remote one as its owner sees it.
    for (const replica of [a, b]) {
      await waitUntil(
        async () => {
          const { rows } = overviewSchema.parse((await getJson(replica.url, '/api/overview')).body);
          const remoteRow = rows.find((row) => row.target.id === remoteTarget);
          const ids = rows.map((row) => row.target.id).sort();
          return ids.join() === [...TARGET_IDS].sort().join() && (remoteRow?.sampling.achievedHz ?? 0) > 0;
        },
        10_000,
        'both targets in the overview, the remote one sampled',
        200,
      );
    }
    const overviewOnB = overviewSchema.parse((await getJson(b.url, '/api/overview')).body);
    expect(overviewOnB.rows.map((row) => row.target.id).sort()).toEqual([...TARGET_IDS].sort());
    expect(overviewOnB.rows.every((row) => row.target.status.state === 'live')).toBe(true);

    // A backend of the watched server, asked about on b, which does not sample that target.
    const pid = (await backend.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
    const detail = await getJson(b.url, `/api/targets/${remoteTarget}/processes/${pid}`);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(processDetailSchema.parse(detail.body).pid).toBe(pid);
    expect(await getJson(b.url, `/api/targets/${remoteTarget}/processes/2147483646`)).toEqual({
      status: 404,
      body: { error: 'no process with pid 2147483646' },
    });
    const [relayedAudit, ownAudit] = await Promise.all([
      getJson(b.url, `/api/targets/${remoteTarget}/audit?targetVersion=19`),
      getJson(a.url, `/api/targets/${remoteTarget}/audit?targetVersion=19`),
    ]);
    expect(relayedAudit.status).toBe(200);
    expect(auditReportSchema.parse(relayedAudit.body).findings).toEqual(
      auditReportSchema.parse(ownAudit.body).findings,
    );
    expect((await getJson(b.url, '/api/targets/nowhere/audit')).status).toBe(404);

    // One viewer per target: every frame, status and snapshot a viewer gets is of its target.
    const [local, remote] = [await connectViewer(b.url), await connectViewer(b.url)];
    viewers.push(local, remote);
    expect((await joinAs(local, localTarget)).reply).toEqual({ ok: true });
    expect((await joinAs(remote, remoteTarget)).reply).toEqual({ ok: true });
    await waitUntil(() => remote.frames.length > 5, 5_000, 'remote frames on b', 50);

    redis.stop();
    const lostAt = Date.now();
    await waitUntil(
      () => remote.statuses.some((s) => s.state === 'reconnecting'),
      10_000,
      'the remote viewer told why',
      50,
    );
    expect(remote.statuses.at(-1)?.message).toMatch(
      /^sampled by another replica, whose live view cannot reach this one: the live adapter's Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/,
    );
    const listed = targetListSchema.parse((await getJson(b.url, '/api/targets')).body);
    expect(Object.fromEntries(listed.map((t) => [t.id, t.status.state]))).toEqual({
      [localTarget]: 'live',
      [remoteTarget]: 'reconnecting',
    });
    expect(listed.find((t) => t.id === remoteTarget)?.status.message).toMatch(/Redis .* is unreachable/);
    const overviewWithout = overviewSchema.parse((await getJson(b.url, '/api/overview')).body);
    const remoteRowWithout = overviewWithout.rows.find((row) => row.target.id === remoteTarget);
    expect(overviewWithout.rows.map((row) => [row.target.id, row.target.status.state])).toEqual([
      // Most in need of attention first: the one b cannot see.
      [remoteTarget, 'reconnecting'],
      [localTarget, 'live'],
    ]);
    expect(remoteRowWithout?.attention.reasons.map((reason) => reason.kind)).toEqual(['disconnected']);
    expect(remoteRowWithout?.attention.reasons[0]?.message).toMatch(
      /^reconnecting for \d+ s: .*Redis .* is unreachable/,
    );
    expect(remoteRowWithout?.sampling.achievedHz).toBeNull();
    const auditWithout = await getJson(b.url, `/api/targets/${remoteTarget}/audit`);
    expect(auditWithout.status).toBe(503);
    expect(JSON.stringify(auditWithout.body)).toMatch(/Redis .* is unreachable/);
    // The live view of b's own target goes on.
    const localBefore = local.frames.length;
    await sleep(2_000);
    // 20 Hz for 2 s, 40 frames when idle; at least 10 on a busy machine. Sampling held up by the
    // lost Redis (a publish waiting on it) would leave one or none.
    expect(local.frames.length - localBefore).toBeGreaterThanOrEqual(10);
    expect(local.frames.at(-1)?.frame.t ?? 0).toBeGreaterThan(lostAt);

    await redis.start();
    const backAt = Date.now();
    await waitUntil(() => remote.snapshots.length >= 2, 15_000, 'a fresh snapshot once Redis is back', 50);
    await waitUntil(() => remote.frames.some(({ frame }) => frame.t > backAt), 10_000, 'remote frames again', 50);
    await waitUntil(
      async () => (await fleet.sampled(b.url)).join() === [...TARGET_IDS].sort().join(),
      10_000,
      'both targets live on b again',
      200,
    );
  });

  it('stops sampling on a replica cut off from the store once the replica that took its targets says so', async () => {
    for (const run of pair) run.child.kill('SIGKILL');
    viewers.forEach((viewer) => viewer.close());
    // The island reaches the store through a path that can go dead; Redis it reaches directly.
    const path = await startFreezablePath(Number(fleet.store.connectionConfig.port));
    try {
      const islandStore = fleet.storeUrl.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${path.port}/`);
      const island = await fleet.replica('island', ['--adapter', redis.url], islandStore);
      const all = [...TARGET_IDS].sort();
      await waitUntil(
        async () => (await fleet.owned(island.url)).join() === all.join(),
        30_000,
        'the island owning both',
        200,
      );
      path.freeze();
      // The store ends the island's session, as its keepalives do once the path is dead: its locks go.
      const storeAdmin = await connect(fleet.store);
      try {
        await storeAdmin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'aioscope replica %'",
        );
      } finally {
        await storeAdmin.end();
      }
      const mainland = await fleet.replica('mainland', ['--adapter', redis.url]);
      await waitUntil(
        async () => (await fleet.owned(mainland.url)).join() === all.join(),
        30_000,
        'the mainland owning both',
        200,
      );
      // Told over Redis, with its own path to the store still dead: it samples neither any more.
      await waitUntil(
        async () => (await fleet.owned(island.url)).length === 0,
        10_000,
        'the island giving both up',
        200,
      );
      path.thaw();
      await waitUntil(
        async () => (await fleet.owned(island.url)).length === 1 && (await fleet.owned(mainland.url)).length === 1,
        30_000,
        'one target each once the path carries again',
        200,
      );
    } finally {
      await path.close();
    }
  });
});
