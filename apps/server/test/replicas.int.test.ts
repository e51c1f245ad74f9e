import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyEventsSchema, historyExtentSchema, targetListSchema, targetSummarySchema } from '@aioscope/spec';
import { PG_SCHEMA } from '../src/history/pgStore/pgStoreSchema.ts';
import { runCli } from './support/cliProcess.ts';
import { waitUntil } from './support/polling.ts';
import { expectWritersApart, startReplicaFleet, type ReplicaFleet } from './support/replicaFleet.ts';
import { connect, freePort } from './support/testPostgres.ts';

/**
 * aioscope replicas as real processes sharing one PostgreSQL 18 store and one targets file: each
 * target is sampled by one of them, and the others take over when its owner is killed with -9.
 */
const TARGET_IDS = ['orders', 'billing', 'search'];

/** A series' value in an exposition: `name{target="id",…} value`. */
function metric(text: string, name: string, target: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`target="${target}"`));
  return Number(line?.split(' ').at(-1) ?? NaN);
}

describe('replicas sharing a store', () => {
  let fleet: ReplicaFleet;

  beforeAll(async () => {
    // Three targets on one real server (targets may share a server; each is sampled on its own).
    fleet = await startReplicaFleet('replicas', TARGET_IDS);
  });

  afterAll(async () => {
    await fleet?.stop();
  });

  const replica = (name: string): ReturnType<ReplicaFleet['replica']> => fleet.replica(name);
  const sampled = (url: string): Promise<string[]> => fleet.sampled(url);
  /** The replica left sampling every target once the first test killed the other. */
  let survivor: { url: string } | undefined;

  it('samples each target in exactly one replica, takes over within 5 s of a kill -9, and never two writers for one target', async () => {
    const a = await replica('a');
    const b = await replica('b');
    const spread = async (): Promise<boolean> => {
      const [onA, onB] = [await sampled(a.url), await sampled(b.url)];
      const all = [...onA, ...onB];
      return (
        all.length === TARGET_IDS.length && new Set(all).size === TARGET_IDS.length && onA.length > 0 && onB.length > 0
      );
    };
    await waitUntil(spread, 30_000, 'the targets spread over both replicas, each live in one', 200);
    const ownedByA = await sampled(a.url);
    // A target another replica samples is not "no longer watched" on this one.
    for (const url of [a.url, b.url]) {
      const listed = targetListSchema.parse(await (await fetch(new URL('/api/targets', url))).json());
      expect(listed.filter((t) => t.unwatchedSince !== undefined).map((t) => t.id)).toEqual([]);
    }
    // /metrics over both replicas counts each target once, and names the replica.
    const scrapes = await Promise.all(
      [a.url, b.url].map(async (url) => (await fetch(new URL('/metrics', url))).text()),
    );
    for (const target of TARGET_IDS) {
      const owners = scrapes.map((text) => metric(text, 'aioscope_target_owned', target));
      expect(
        owners.reduce((sum, value) => sum + value, 0),
        `${target}: ${owners.join(', ')}`,
      ).toBe(1);
      const sampling = scrapes.filter((text) => text.includes(`aioscope_samples_total{target="${target}"`));
      expect(sampling).toHaveLength(1);
    }
    expect(scrapes.every((text) => /aioscope_replica_owned_targets\{replica="[^"]+"\} [12]/.test(text))).toBe(true);

    a.run.child.kill('SIGKILL');
    await a.run.exited;
    const killedAt = Date.now();
    await waitUntil(
      async () => (await sampled(b.url)).length === TARGET_IDS.length,
      15_000,
      'replica b sampling every target',
      100,
    );
    const takeoverMs = Date.now() - killedAt;
    survivor = b;
    expect(takeoverMs).toBeLessThan(5_000 + 2_000); // a target's monitor needs up to ~2 s to go live
    // The history says where sampling went: the taken target's marker after the kill names b,
    // as its /metrics label does (host, pid and a nonce without --replica-name).
    const bLabel = /aioscope_replica_owned_targets\{replica="([^"]+)"\}/.exec(
      await (await fetch(new URL('/metrics', b.url))).text(),
    )?.[1];
    expect(bLabel).toBeDefined();
    const takenOver = ownedByA[0] ?? '';
    await waitUntil(
      async () => {
        const response = await fetch(
          new URL(`/api/targets/${takenOver}/history/events?from=${killedAt - 1_000}&to=${Date.now() + 1_000}`, b.url),
        );
        const { events } = historyEventsSchema.parse(await response.json());
        return events.some(
          (event) => event.kind === 'connected' && event.message === `connected, sampled by replica ${bLabel ?? ''}`,
        );
      },
      10_000,
      `a marker of ${takenOver} naming replica b (${bLabel ?? ''}) once it took it over`,
      200,
    );
    // History keeps frames of every target, and no second of one target was written by two replicas.
    const team = await connect(fleet.store, { database: 'team' });
    await waitUntil(
      async () => {
        const { rows } = await team.query<{ targets: string }>(
          `SELECT count(DISTINCT target) AS targets FROM ${PG_SCHEMA}.raw WHERE kind = 0`,
        );
        return Number(rows[0]?.targets) === TARGET_IDS.length;
      },
      10_000,
      'frames of every target in the store',
    );
    try {
      // B's frames of the targets it took over reach the store.
      await waitUntil(
        async () => {
          const { rows } = await team.query<{ target: string }>(
            `SELECT DISTINCT target FROM ${PG_SCHEMA}.raw WHERE kind = 0 AND first_t > $1 GROUP BY target, writer`,
            [killedAt],
          );
          return ownedByA.every((target) => rows.some((row) => row.target === target));
        },
        10_000,
        'frames of the taken-over targets written after the kill',
      );
    } finally {
      await team.end();
    }
    await expectWritersApart(fleet, TARGET_IDS);
  });

  it('lists a target the targets file dropped on every replica, not only its last sampler, and serves its past from each', async () => {
    expect(survivor, 'the first test left a replica running').toBeDefined();
    const b = survivor ?? { url: '' };
    const c = await replica('c');
    await waitUntil(
      async () => (await fleet.owned(b.url)).length > 0 && (await fleet.owned(c.url)).length > 0,
      30_000,
      'the targets shared again with the new replica',
      200,
    );
    // One b kept: c never sampled it, so c knows it only from the file and the shared store.
    const dropped = (await fleet.owned(b.url))[0] ?? '';
    const kept = TARGET_IDS.filter((id) => id !== dropped);
    await writeFile(
      fleet.targetsFile,
      kept.map((id) => `- name: ${id}\n  url: ${fleet.targetUrls[TARGET_IDS.indexOf(id)] ?? ''}\n`).join(''),
    );
    for (const url of [b.url, c.url]) {
      const listedAsGone = async (): Promise<boolean> => {
        const listed = targetListSchema.parse(await (await fetch(new URL('/api/targets', url))).json());
        return listed.some((t) => t.id === dropped && t.unwatchedSince !== undefined);
      };
      await waitUntil(listedAsGone, 10_000, `${dropped} listed as no longer watched by ${url}`, 200);
      const summary = await fetch(new URL(`/api/targets/${dropped}`, url));
      expect(summary.status).toBe(200);
      const parsedSummary = targetSummarySchema.parse(await summary.json());
      expect(parsedSummary.unwatchedSince).toBeGreaterThan(0);
      // Its server and rates as last recorded, on the replica that never sampled it too.
      expect(parsedSummary.server?.versionNum, url).toBeGreaterThanOrEqual(180000);
      expect(parsedSummary.sampleRateHz, url).toBeGreaterThan(0);
      // Its past, written to the shared store by the replicas that sampled it, read through either.
      const extent = await fetch(new URL(`/api/targets/${dropped}/history`, url));
      expect(extent.status, url).toBe(200);
      const parsed = historyExtentSchema.parse(await extent.json());
      expect(parsed.raw, url).not.toBeNull();
      expect(parsed.recording).toMatchObject({ state: 'off', reason: expect.stringMatching(/no longer watched/) });
    }
  });

  it('refuses to start when the store cannot be reached, naming it without its password', async () => {
    const port = await freePort();
    const run = runCli(
      ['--targets', fleet.targetsFile, '--store', `postgres://aioscope:secret@127.0.0.1:${port}/team`],
      {
        PGPASSFILE: fleet.passFile,
      },
    );
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(
      /history store at postgres:\/\/aioscope@127\.0\.0\.1:\d+\/team cannot be used: .*ECONNREFUSED/,
    );
    expect(run.stderr()).not.toContain('secret');
    expect(run.stderr().trim().split('\n'), run.stderr()).toHaveLength(1);
  });
});
