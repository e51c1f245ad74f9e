import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA, PG_STORE_MIGRATIONS } from '../src/history/pgStore/pgStoreSchema.ts';
import { PostgresStoreEngine } from '../src/history/pgStore/pgStoreEngine.ts';
import { latestVersion } from '../src/history/migrations.ts';
import { SILENT_AFTER_MS } from '../src/live/redisAdapter.ts';
import type { Readiness } from '../src/routes/readiness.ts';
import { sleep, waitUntil } from './support/polling.ts';
import { startRedis, startReplicaFleet, type ReplicaFleet, type RunningRedis } from './support/replicaFleet.ts';
import { startFreezablePath } from './support/frozenPath.ts';
import { connect } from './support/testPostgres.ts';

/**
 * Readiness against real parts: a replica on a PostgreSQL 18 store with a real Redis as its live
 * adapter. /api/ready (open without the token) follows each of them going away and coming back; /api/health (liveness)
 * stays 200 throughout, since the replica goes on sampling what it owns.
 */
describe('readiness of a replica', () => {
  let fleet: ReplicaFleet;
  let redis: RunningRedis;

  beforeAll(async () => {
    [fleet, redis] = await Promise.all([startReplicaFleet('readiness', ['orders']), startRedis()]);
  });

  afterAll(async () => {
    await fleet?.stop();
    redis?.stop();
  });

  async function ready(url: string): Promise<{ status: number; body: Readiness }> {
    const response = await fetch(new URL('/api/ready', url));
    return { status: response.status, body: (await response.json()) as Readiness };
  }

  async function readyBecomes(url: string, status: number, what: string): Promise<Readiness> {
    let last: { status: number; body: Readiness } | null = null;
    await waitUntil(
      async () => (last = await ready(url)).status === status,
      15_000,
      `${what} (last: ${JSON.stringify(last)})`,
      100,
    );
    expect((await fetch(new URL('/api/health', url))).status).toBe(200);
    return (last as { status: number; body: Readiness } | null)?.body ?? (await ready(url)).body;
  }

  it('says 503 with the reason while Redis or the store is gone, 200 once each is back', async () => {
    // With a token, as beyond loopback: the probe sends none, and needs none (nothing else is open).
    const { url } = await fleet.replica('a', ['--adapter', redis.url, '--token', 'readiness-probe-token']);
    expect((await fetch(new URL('/api/targets', url))).status).toBe(401);
    expect(await readyBecomes(url, 200, 'ready at start')).toEqual({
      ready: true,
      store: { ok: true, kind: 'postgres', reason: null },
      adapter: { ok: true, kind: 'redis', reason: null },
    });

    redis.stop();
    const withoutRedis = await readyBecomes(url, 503, 'not ready without Redis');
    expect(withoutRedis.store.ok).toBe(true);
    expect(withoutRedis.adapter).toMatchObject({ ok: false, kind: 'redis' });
    expect(withoutRedis.adapter.reason).toMatch(
      /^the live adapter's Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/,
    );
    await redis.start();
    expect((await readyBecomes(url, 200, 'ready with Redis back')).adapter.ok).toBe(true);

    await fleet.store.stop();
    const withoutStore = await readyBecomes(url, 503, 'not ready without the store');
    expect(withoutStore.adapter.ok).toBe(true);
    expect(withoutStore.store).toMatchObject({ ok: false, kind: 'postgres' });
    expect(withoutStore.store.reason).toMatch(/^the shared store does not answer: ./);
    await fleet.store.restart({});
    expect((await readyBecomes(url, 200, 'ready with the store back')).store.ok).toBe(true);
  });

  it('says why a Redis that refuses the adapter its channels cannot be used, and goes on running', async () => {
    // A user whose ACL allows every command but no pub/sub channel of the adapter's: Redis answers
    // NOPERM to each subscription, which the adapter leaves unhandled (shardedRedis.ts).
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      await admin.sendCommand([
        'ACL',
        'SETUSER',
        'no-channels',
        'on',
        '>channel-secret',
        '~*',
        '+@all',
        'resetchannels',
      ]);
    } finally {
      await admin.close();
    }
    const limited = redis.url.replace('redis://', 'redis://no-channels:channel-secret@');
    const { run, url } = await fleet.replica('c', ['--adapter', limited]);
    const refused = await readyBecomes(url, 503, 'not ready with its channels refused');
    expect(refused.store.ok).toBe(true);
    expect(refused.adapter).toMatchObject({ ok: false, kind: 'redis' });
    expect(refused.adapter.reason).toMatch(
      /^the live adapter's Redis at redis:\/\/no-channels@127\.0\.0\.1:\d+\/? cannot be used: NOPERM/,
    );
    expect(JSON.stringify(refused)).not.toContain('channel-secret');
    expect(run.stderr() + run.stdout()).toMatch(/live adapter Redis at \S+ cannot be used: NOPERM/);
    // Still up and sampling: a refused subscription is a state, not a crash.
    await sleep(1_000);
    expect(run.child.exitCode).toBeNull();
    expect((await fetch(new URL('/api/health', url))).status).toBe(200);
  });

  it('refuses a store a newer aioscope wrote, naming both versions; with --wait-for-db it runs but is not ready', async () => {
    const admin = await connect(fleet.store);
    try {
      await admin.query('CREATE DATABASE newer');
    } finally {
      await admin.end();
    }
    const newerUrl = fleet.storeUrl.replace(/\/team$/, '/newer');
    const engine = new PostgresStoreEngine(newerUrl);
    await engine.open();
    await engine.close();
    const latest = latestVersion(PG_STORE_MIGRATIONS);
    const store = await connect(fleet.store, { database: 'newer' });
    try {
      await store.query(`UPDATE ${PG_SCHEMA}.store_meta SET store_version = $1`, [latest + 1]);
    } finally {
      await store.end();
    }

    const refused = await fleet.spawn('refused', [], newerUrl);
    expect(await refused.exited).toBe(2);
    const said = refused.stderr().trim();
    expect(said).toContain(String(latest + 1));
    expect(said).toContain(String(latest));
    // Waiting would not help: no hint to wait.
    expect(said).not.toMatch(/--wait-for-db/);

    const { run, url } = await fleet.replica('waiting', ['--wait-for-db'], newerUrl);
    const notReady = await readyBecomes(url, 503, 'not ready: recording refused');
    expect(notReady.store).toMatchObject({ ok: false, kind: 'postgres' });
    expect(notReady.store.reason).toMatch(/^recording into the shared store is paused: .*newer/);
    expect(run.child.exitCode).toBeNull();
  });

  it('finds out a Redis behind a dead network path by its PINGs going unanswered, and is ready once it answers', async () => {
    const path = await startFreezablePath(Number(new URL(redis.url).port));
    try {
      const { url } = await fleet.replica('far', ['--adapter', `redis://127.0.0.1:${path.port}`]);
      await readyBecomes(url, 200, 'ready through the path');
      path.freeze();
      const frozenAt = Date.now();
      // Nothing closes: only the replies that stop coming tell.
      const lost = await readyBecomes(url, 503, 'not ready once Redis stops answering');
      expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(SILENT_AFTER_MS - 1_000);
      expect(lost.adapter.reason).toMatch(
        /^the live adapter's Redis at redis:\/\/127\.0\.0\.1:\d+\/? does not answer: no reply to PING for \d+ s$/,
      );
      expect(lost.store.ok).toBe(true);
      path.thaw();
      await readyBecomes(url, 200, 'ready again once Redis answers');
    } finally {
      await path.close();
    }
  });
});
