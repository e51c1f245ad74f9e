import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import {
  PROBE_WAIT_MS,
  QUERY_WAIT_MS,
  REJOIN_GRACE_MS,
  TARGET_LOCK_CLASS,
  TargetOwnership,
  lockKey,
} from '../src/fleet/targetOwnership.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { Logger } from '../src/system/logger.ts';
import { startFreezablePath, type FreezablePath } from './support/frozenPath.ts';
import { waitUntil } from './support/polling.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

/** Replicas sharing targets through advisory locks on a real PostgreSQL 18 store. */
let server: EmbeddedPostgresServer;
let admin: pg.Client;
let url: string;
const TARGETS = ['a', 'b', 'c', 'd', 'e', 'f'];
const QUIET = { info: (): void => undefined, warn: (): void => undefined };
let replicas: TargetOwnership[] = [];

beforeAll(async () => {
  server = await startTestPostgres('ownership');
  admin = await connect(server);
  const { user, password, port } = server.connectionConfig;
  url = `postgres://${encodeURIComponent(String(user))}:${encodeURIComponent(String(password))}@127.0.0.1:${String(port)}/postgres`;
});

afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  replicas = [];
});

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

async function replica(id: string): Promise<TargetOwnership> {
  const ownership = new TargetOwnership({ connectionString: url, replicaId: id, log: QUIET, checkIntervalMs: 200 });
  ownership.setTargets(TARGETS);
  await ownership.start();
  replicas.push(ownership);
  return ownership;
}

const owned = (replica: TargetOwnership): string[] => [...replica.state().owned].sort();

/** A replica reaching the store through `path` (a relay whose path can go dead), once it owns every target. */
async function replicaThrough(path: FreezablePath, id: string, log: Logger = QUIET): Promise<TargetOwnership> {
  const ownership = new TargetOwnership({
    connectionString: url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${path.port}/`),
    replicaId: id,
    log,
    checkIntervalMs: 200,
  });
  replicas.push(ownership);
  ownership.setTargets(TARGETS);
  await ownership.start();
  await waitUntil(() => owned(ownership).length === TARGETS.length, 5_000, 'all targets owned');
  return ownership;
}

/** Every target owned by exactly one of `live`, each of them holding `share`. */
function spread(live: TargetOwnership[], share: number): boolean {
  const all = live.flatMap(owned);
  return (
    all.length === TARGETS.length &&
    new Set(all).size === TARGETS.length &&
    live.every((r) => owned(r).length === share)
  );
}

describe('target ownership through the store', () => {
  it('spreads the targets evenly, takes over a departed replica’s within 5 s, and shares again when it returns', async () => {
    const [r1, r2, r3] = [await replica('r1'), await replica('r2'), await replica('r3')];
    await waitUntil(() => spread([r1, r2, r3], 2), 10_000, 'two targets per replica');
    expect(r1.state().replicas).toBe(3);

    // The server ends r1's session (as when its process dies): its locks go with it.
    await r1.stop();
    const takeover = await waitUntil(() => spread([r2, r3], 3), 5_000, 'r1’s targets taken over');
    expect(takeover).toBeLessThan(5_000);

    const back = await replica('r1');
    await waitUntil(() => spread([back, r2, r3], 2), 10_000, 'r1 taking its share again');
  });

  it('spreads targets that do not divide evenly so that no replica is left with none', async () => {
    // 6 targets over 4 replicas: two hold 2 and two hold 1 (rounding the share up alone left 2, 2, 2, 0).
    const four = [await replica('q1'), await replica('q2'), await replica('q3'), await replica('q4')];
    await waitUntil(
      () => {
        const all = four.flatMap(owned);
        const counts = four.map((r) => owned(r).length).sort();
        return new Set(all).size === TARGETS.length && all.length === TARGETS.length && counts.join() === '1,1,2,2';
      },
      15_000,
      'two replicas with two targets, two with one',
    );
  });

  it('stops sampling a target it gives back before its lock goes, so the next owner never samples it alongside', async () => {
    const first = await replica('first');
    await waitUntil(() => owned(first).length === TARGETS.length, 5_000, 'all targets owned');
    const heldWhenHeard: { target: string; locked: boolean }[] = [];
    first.onChange(async (state) => {
      // What the monitors plugin does here: stop the monitors of the targets no longer owned.
      for (const target of TARGETS.filter((t) => !state.owned.has(t))) {
        const { rows } = await admin.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid AND objid = $2::bigint::oid",
          [TARGET_LOCK_CLASS, lockKey(target) >>> 0], // pg_locks shows the int4 key as an unsigned oid
        );
        heldWhenHeard.push({ target, locked: rows[0]?.n === '1' });
      }
    });
    const second = await replica('second');
    await waitUntil(() => spread([first, second], 3), 5_000, 'three targets given to the second replica');
    expect(heldWhenHeard.length).toBeGreaterThanOrEqual(3);
    expect(heldWhenHeard.filter((seen) => !seen.locked)).toEqual([]);
  });

  it('keeps sampling what it owns while its session is lost, and keeps the targets nobody took', async () => {
    const only = await replica('solo');
    await waitUntil(() => owned(only).length === TARGETS.length, 5_000, 'all targets owned');
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aioscope replica solo'",
    );
    // Lost and reconnected: still every target, none given up meanwhile.
    const seen: number[] = [];
    const stop = only.onChange((state) => void seen.push(state.owned.size));
    await waitUntil(
      async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'aioscope replica solo'",
            )
          ).rows[0]?.n,
        ) === 1 && owned(only).length === TARGETS.length,
      10_000,
      'the session back with every target',
    );
    stop();
    expect(seen.every((size) => size === TARGETS.length)).toBe(true);
  });

  it('drops a target another replica took while its session was lost, once its monitor has stopped', async () => {
    const only = await replica('cut');
    await waitUntil(() => owned(only).length === TARGETS.length, 5_000, 'all targets owned');
    expect(only.unconfirmed()).toBeNull();
    const events: string[] = [];
    only.onChange((state) => void events.push(`owned ${[...state.owned].sort().join('')}`));
    only.onLost((targets) => void events.push(`lost ${[...targets].sort().join('')}`));
    // Another session waits for target a's lock, so it has it the moment the replica's session ends
    // and before the replica's next check connects again: what a replica that took over does.
    const other = await connect(server);
    try {
      const taking = other.query('SELECT pg_advisory_lock($1, $2)', [TARGET_LOCK_CLASS, lockKey('a')]);
      await waitUntil(
        async () =>
          Number(
            (await admin.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
              .rows[0]?.n,
          ) === 1,
        5_000,
        'the other session waiting for a',
      );
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aioscope replica cut'",
      );
      await taking;
      await waitUntil(
        () => only.unconfirmed() === null && !owned(only).includes('a'),
        10_000,
        'a dropped, the rest kept',
      );
      expect(owned(only)).toEqual(TARGETS.filter((t) => t !== 'a'));
      // Its monitor is stopped (onChange) before what it recorded meanwhile is dropped (onLost).
      expect(events).toEqual(['owned bcdef', 'lost a']);
    } finally {
      await other.end();
    }
  });

  it('shuts its recording while the store does not answer, and opens it once the locks are taken again', async () => {
    const only = await replica('shut');
    await waitUntil(() => owned(only).length === TARGETS.length, 5_000, 'all targets owned');
    const seen: (string | null)[] = [];
    const sampler = setInterval(() => seen.push(only.unconfirmed()), 20);
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aioscope replica shut'",
      );
      await waitUntil(() => seen.some((reason) => reason !== null), 5_000, 'the recording shut');
      await waitUntil(() => only.unconfirmed() === null, 5_000, 'the recording open again');
    } finally {
      clearInterval(sampler);
    }
    expect(seen.find((reason) => reason !== null)).toMatch(/ownership of its targets is not confirmed by the store/);
    expect(owned(only)).toEqual(TARGETS);
  });

  it('finds out a dead network path to the store by its own timeout, and recovers once it carries again', async () => {
    const path = await startFreezablePath(Number(server.connectionConfig.port));
    const warned: string[] = [];
    const ownership = await replicaThrough(path, 'far', { info: () => undefined, warn: (line) => warned.push(line) });
    try {
      path.freeze();
      // Nothing answers, nothing closes: only the query's own timeout tells.
      const noticed = await waitUntil(() => !ownership.state().connected, QUERY_WAIT_MS + 3_000, 'the path found dead');
      expect(noticed).toBeGreaterThan(QUERY_WAIT_MS - 1_500);
      expect(ownership.unconfirmed()).toMatch(/Query read timeout/);
      expect(warned).toEqual([expect.stringMatching(/^target ownership: Query read timeout/)]);
      expect(owned(ownership)).toEqual(TARGETS); // kept, still sampled: nobody else could take them
      path.thaw();
      await waitUntil(
        () => ownership.unconfirmed() === null && owned(ownership).length === TARGETS.length,
        10_000,
        'the ownership confirmed again with every target',
      );
    } finally {
      await ownership.stop();
      await path.close();
    }
  });

  it('stops sampling at once the targets another replica says it took while the path to the store is dead', async () => {
    const path = await startFreezablePath(Number(server.connectionConfig.port));
    const island = await replicaThrough(path, 'island');
    try {
      const events: string[] = [];
      island.onChange((state) => void events.push(`owned ${[...state.owned].sort().join('')}`));
      island.onLost((targets) => void events.push(`lost ${[...targets].sort().join('')}`));
      path.freeze();
      // The store ends the island's session, as its keepalives do once the path is dead: its locks go,
      // and a replica on the mainland takes every target. The island cannot know: it still samples them.
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'aioscope replica island'",
      );
      const mainland = await replica('mainland');
      await waitUntil(() => owned(mainland).length === TARGETS.length, 5_000, 'the mainland owning every target');
      expect(owned(island)).toEqual(TARGETS);
      // What the live adapter carries from the mainland: its session does not answer, so the word stands.
      const started = Date.now();
      await Promise.all(owned(mainland).map((target) => island.takenElsewhere(target)));
      expect(Date.now() - started).toBeLessThan(PROBE_WAIT_MS + 1_000);
      expect(owned(island)).toEqual([]);
      expect(island.unconfirmed()).not.toBeNull();
      path.thaw();
      // Back: the targets it dropped are told lost (what it recorded meanwhile is not written), then
      // it takes its share again, each target owned once.
      await waitUntil(
        () => spread([island, mainland], TARGETS.length / 2),
        15_000,
        'the island taking its share again',
      );
      // Each word stops its target (one change each), and only then is what they recorded dropped.
      // (One change per word, or one for several when the words came while a session was being opened.)
      const told = events.indexOf(`lost ${TARGETS.join('')}`);
      const before = events.slice(0, told);
      expect(told, JSON.stringify(events)).toBeGreaterThan(0);
      expect(
        before.every((event) => event.startsWith('owned ')),
        JSON.stringify(events),
      ).toBe(true);
      expect(before.at(-1), JSON.stringify(events)).toBe('owned ');
    } finally {
      await island.stop();
      await path.close();
    }
  });

  it('keeps a target when the word that another replica took it is an old one: its session answers', async () => {
    const r = await replica('holder');
    await waitUntil(() => owned(r).length === TARGETS.length && r.unconfirmed() === null, 5_000, 'all targets owned');
    await r.takenElsewhere('a');
    expect(owned(r)).toEqual(TARGETS);
    expect(r.unconfirmed()).toBeNull();
  });

  it('after the store restarts, each replica takes back its own targets, none another’s', async () => {
    const [r1, r2] = [await replica('before1'), await replica('before2')];
    await waitUntil(() => spread([r1, r2], 3), 10_000, 'three targets each');
    const [had1, had2] = [owned(r1), owned(r2)];
    const lost: string[] = [];
    for (const r of [r1, r2]) r.onLost((targets) => void lost.push(...targets));
    // Every session ends at once: the first replica back is alone in pg_locks for a moment.
    await admin.end();
    await server.restart({});
    admin = await connect(server);
    await waitUntil(
      () => r1.unconfirmed() === null && r2.unconfirmed() === null && spread([r1, r2], 3),
      REJOIN_GRACE_MS + 10_000,
      'both back',
    );
    expect(lost).toEqual([]);
    expect([owned(r1), owned(r2)]).toEqual([had1, had2]);
  });

  it('gives back a target the targets file no longer lists', async () => {
    const r = await replica('r');
    await waitUntil(() => owned(r).length === TARGETS.length, 5_000, 'all targets owned');
    r.setTargets(TARGETS.slice(1));
    const grantedLocks = async (): Promise<number> =>
      Number(
        (await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted"))
          .rows[0]?.n,
      );
    // The replica drops the target, then unlocks it on its own session: the lock goes a moment later.
    // One replica lock and five target locks (a lock kept would stay at seven).
    await waitUntil(
      async () => !owned(r).includes('a') && (await grantedLocks()) === TARGETS.length,
      5_000,
      'target a given back, its lock released',
    );
  });

  it('says once that the store does not answer, not at every check, and says when it answers again', async () => {
    await admin.query('CREATE DATABASE ownership_away');
    try {
      await admin.query('ALTER DATABASE ownership_away WITH ALLOW_CONNECTIONS false');
      const said: string[] = [];
      const log = {
        info: (line: string) => said.push(`info ${line}`),
        warn: (line: string) => said.push(`warn ${line}`),
      };
      const ownership = new TargetOwnership({
        connectionString: url.replace(/\/postgres$/, '/ownership_away'),
        replicaId: 'away',
        log,
        checkIntervalMs: 100,
      });
      replicas.push(ownership);
      ownership.setTargets(TARGETS);
      await ownership.start();
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // ten checks or so
      expect(ownership.state().connected).toBe(false);
      expect(said).toEqual([expect.stringMatching(/^warn target ownership: .*not currently accepting connections/)]);
      await admin.query('ALTER DATABASE ownership_away WITH ALLOW_CONNECTIONS true');
      await waitUntil(() => owned(ownership).length === TARGETS.length, 5_000, 'the targets, once the store answers');
      expect(said.slice(1)).toEqual(['info target ownership: the store answers again']);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
      replicas = [];
      await admin.query('DROP DATABASE ownership_away WITH (FORCE)');
    }
  });
});
