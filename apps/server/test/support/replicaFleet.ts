import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { expect } from 'vitest';
import { targetListSchema } from '@aioscope/spec';
import { PG_SCHEMA } from '../../src/history/pgStore/pgStoreSchema.ts';
import type { EmbeddedPostgresServer } from '../../src/postgres/embeddedPostgres.ts';
import { runCli, waitForUrl, type CliRun } from './cliProcess.ts';
import { waitUntil } from './polling.ts';
import { connect, freePort, startTestPostgres } from './testPostgres.ts';

/**
 * Real replicas for a test: a PostgreSQL 18 store, one watched server or more, a targets file
 * listing `targetIds` on them (passwords in a password file, as psql reads them), and aioscope processes
 * started on it with `--targets` and `--store`.
 */
export interface ReplicaFleet {
  store: EmbeddedPostgresServer;
  /** The (first) server the targets watch. */
  watched: EmbeddedPostgresServer;
  storeUrl: string;
  targetsFile: string;
  /** Each target's URL, in targetIds' order, as the targets file lists it (passwords in passFile). */
  targetUrls: readonly string[];
  passFile: string;
  /**
   * Starts a replica process with its own data folder; extra flags after the shared ones; `store`
   * instead of storeUrl (the same store through another path).
   */
  spawn(name: string, extra?: string[], store?: string): Promise<CliRun>;
  /** spawn, then waits for it to listen. */
  replica(name: string, extra?: string[], store?: string): Promise<{ run: CliRun; url: string }>;
  /** The targets a replica lists as live, sorted (with --adapter also those sampled elsewhere). */
  sampled(url: string): Promise<string[]>;
  /** The targets a replica owns, by its /metrics (aioscope_target_owned 1), sorted. */
  owned(url: string): Promise<string[]>;
  stop(): Promise<void>;
}

export interface ReplicaFleetOptions {
  /** Watched servers the targets are spread over, in turn (1 by default). */
  watchedServers?: number;
  /** Sent with the helpers' own requests (an auth proxy's user header). */
  headers?: Record<string, string>;
  /**
   * How node runs each replica (runCli's `node` and `entry`): the sources through tsx on this
   * node by default; the team bench runs `npm start`'s bundle, on another node when asked.
   */
  run?: { node?: string; entry?: readonly string[] };
}

export async function startReplicaFleet(
  name: string,
  targetIds: readonly string[],
  options: ReplicaFleetOptions = {},
): Promise<ReplicaFleet> {
  const servers = Math.max(1, options.watchedServers ?? 1);
  // The embedded server's 20 connections fit a few targets; a cluster behind many target entries
  // needs up to four sessions per entry (fast sampler, pg_stat_io sampler, inspector, relation
  // names), and a new owner opens its own while the old owner's are still closing.
  const perServer = Math.ceil(targetIds.length / servers);
  const watchedSettings = { max_connections: String(Math.max(20, 5 * perServer + 10)) };
  const [store, ...watchedServers] = await Promise.all([
    startTestPostgres(`${name}-store`),
    ...Array.from({ length: servers }, (_, i) =>
      startTestPostgres(i === 0 ? `${name}-watched` : `${name}-watched-${i}`, watchedSettings),
    ),
  ]);
  const watched = watchedServers[0] as EmbeddedPostgresServer;
  const headers = options.headers ?? {};
  const admin: pg.Client = await connect(store);
  await admin.query('CREATE DATABASE team');
  await admin.end();
  const { user, password, port } = store.connectionConfig;
  const storeUrl = `postgres://${encodeURIComponent(String(user))}:${encodeURIComponent(String(password))}@127.0.0.1:${String(port)}/team`;
  const dir = await mkdtemp(path.join(tmpdir(), `aioscope-${name}-`));
  const targetsFile = path.join(dir, 'targets.yaml');
  const passFile = path.join(dir, 'pgpass');
  const configs = watchedServers.map((server) => server.connectionConfig);
  await writeFile(
    passFile,
    configs.map((c) => `127.0.0.1:${String(c.port)}:*:${String(c.user)}:${String(c.password)}\n`).join(''),
  );
  await chmod(passFile, 0o600);
  const targetUrls = targetIds.map((_, i) => {
    const c = configs[i % configs.length] ?? {};
    return `postgres://${String(c.user)}@127.0.0.1:${String(c.port)}/postgres`;
  });
  await writeFile(targetsFile, targetIds.map((id, i) => `- name: ${id}\n  url: ${targetUrls[i] ?? ''}\n`).join(''));
  const runs: CliRun[] = [];
  const fleet: ReplicaFleet = {
    store,
    watched,
    storeUrl,
    targetsFile,
    targetUrls,
    passFile,
    spawn: async (replicaName, extra = [], store = storeUrl) => {
      const run = runCli(
        [
          '--targets',
          targetsFile,
          '--store',
          store,
          '--port',
          String(await freePort()),
          '--data-dir',
          path.join(dir, replicaName),
          ...extra,
        ],
        { PGPASSFILE: passFile },
        [],
        options.run?.node,
        options.run?.entry,
      );
      runs.push(run);
      return run;
    },
    replica: async (replicaName, extra, store) => {
      const run = await fleet.spawn(replicaName, extra, store);
      return { run, url: await waitForUrl(run) };
    },
    sampled: async (url) => {
      const response = await fetch(new URL('/api/targets', url), { headers });
      const targets = targetListSchema.parse(await response.json());
      return targets
        .filter((t) => t.unwatchedSince === undefined && t.status.state === 'live')
        .map((t) => t.id)
        .sort();
    },
    owned: async (url) => {
      const text = await (await fetch(new URL('/metrics', url), { headers })).text();
      return [...text.matchAll(/^aioscope_target_owned\{[^}]*target="([^"]+)"[^}]*\} 1$/gm)]
        .map((match) => match[1] ?? '')
        .sort();
    },
    stop: async () => {
      for (const run of runs) run.child.kill('SIGKILL');
      await Promise.all([store, ...watchedServers].map((server) => server.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fleet;
}

/** Debian's redis-server on a free loopback port, keeping nothing on disk; start() again on the same port. */
export interface RunningRedis {
  url: string;
  /** SIGKILL: the replicas lose it at once. */
  stop: () => void;
  start: () => Promise<void>;
  /** The running redis-server's pid (the bench reads its CPU). */
  pid: () => number | undefined;
}

export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    const started: ChildProcess = spawn(
      '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(() => output.includes('Ready to accept connections'), 10_000, `redis-server ready: ${output}`, 50);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${String(port)}`,
    stop: () => child?.kill('SIGKILL'),
    start,
    pid: () => child?.pid,
  };
}

/**
 * Never two samplers' frames interleaved in the shared store: per target, the raw rows in time
 * order fall into tenures, one writer's rows each, and each tenure begins after the one before it
 * ended (a target moves from one replica to another, and may come back; it is never sampled by two).
 */
export async function expectWritersApart(fleet: ReplicaFleet, targetIds: readonly string[]): Promise<void> {
  const team = await connect(fleet.store, { database: 'team' });
  try {
    const rows = await team.query<{ target: string; writer: string; first: number; last: number }>(
      `SELECT target, writer, first_t AS first, last_t AS last FROM ${PG_SCHEMA}.raw WHERE kind = 0 ORDER BY target, first_t`,
    );
    for (const target of targetIds) {
      const tenures: { writer: string; first: number; last: number }[] = [];
      for (const { writer, first, last } of rows.rows.filter((row) => row.target === target)) {
        const current = tenures.at(-1);
        if (current?.writer === writer) current.last = Math.max(current.last, last);
        else tenures.push({ writer, first, last });
      }
      expect(tenures.length, target).toBeGreaterThan(0);
      for (let i = 1; i < tenures.length; i++) {
        expect(tenures[i]?.first, `${target}: ${JSON.stringify(tenures)}`).toBeGreaterThan(
          tenures[i - 1]?.last ?? Infinity,
        );
      }
    }
  } finally {
    await team.end();
  }
}

/** Two replicas relaying through `adapterUrl`, once each owns one target of two: the target each owns. */
export async function twoReplicasOneTargetEach(
  fleet: ReplicaFleet,
  adapterUrl: string,
): Promise<{ a: { run: CliRun; url: string }; b: { run: CliRun; url: string }; onA: string; onB: string }> {
  const a = await fleet.replica('a', ['--adapter', adapterUrl]);
  const b = await fleet.replica('b', ['--adapter', adapterUrl]);
  let onA: string[] = [];
  let onB: string[] = [];
  await waitUntil(
    async () => {
      [onA, onB] = [await fleet.owned(a.url), await fleet.owned(b.url)];
      return onA.length === 1 && onB.length === 1 && onA[0] !== onB[0];
    },
    30_000,
    'one target owned by each replica',
    200,
  );
  return { a, b, onA: onA[0] ?? '', onB: onB[0] ?? '' };
}
