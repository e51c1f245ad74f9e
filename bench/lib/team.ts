import { readdir, stat } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { historyFramesSchema, targetListSchema } from '@aioscope/spec';
import { INTEREST_TTL_MS } from '../../apps/server/src/live/remoteInterest.ts';
import type { CliRun } from '../../apps/server/test/support/cliProcess.ts';
import { startTeamNginx } from '../../apps/server/test/support/nginx.ts';
import { startRedis, startReplicaFleet, type ReplicaFleet } from '../../apps/server/test/support/replicaFleet.ts';
import { connect, TEST_DATA_ROOT } from '../../apps/server/test/support/testPostgres.ts';
import { ensureStartBuilt } from '../../apps/server/scripts/ensureStartBuilt.ts';
import { START_ENTRY, startCliChild, stopCliChild } from './cliChild.ts';
import { startRoundTripFloor } from './roundTripFloor.ts';
import { nodeVersionOf } from './nodeBinary.ts';
import {
  BENCH_DATA_DIR,
  log,
  sleep,
  using,
  verdict,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { machineCpuSeconds } from './proc.ts';
import { postmasterPid, treeCpuSeconds } from './processTree.ts';
import { fmt, max, median } from './stats.ts';
import { ViewerPool } from './viewerPool.ts';

/** Issue 25's sizes; --quick runs a small team that fits beside other work on two cores. */
const FULL = { targets: 60, viewers: 300, servers: 3, seconds: 30, kills: 5, remoteViewers: 20 };
const QUICK = { targets: 12, viewers: 30, servers: 2, seconds: 10, kills: 2, remoteViewers: 6 };
const RATE_HZ = 20;
const GOALS = { cpuPerTargetPercent: 0.5, remoteP95Ms: 25, failoverMs: 5_000 };

type Replica = { name: string; run: CliRun; url: string };

/**
 * As a team runs the replicas behind deploy/team/nginx.conf: an SSO proxy's user header, trusted
 * from loopback (README "Team deployment"). Every request of the bench's own carries it.
 */
const USER_HEADER = 'X-Forwarded-User';
const AS_USER = { [USER_HEADER]: 'bench' };
const ACCESS_FLAGS = ['--auth-proxy-header', USER_HEADER, '--trusted-proxy', '127.0.0.1/32'];

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

async function ownersOf(
  fleet: ReplicaFleet,
  replicas: readonly Replica[],
  ids: readonly string[],
): Promise<Map<string, string[]>> {
  const owners = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const replica of replicas) {
    for (const id of await fleet.owned(replica.url).catch(() => [])) owners.get(id)?.push(replica.name);
  }
  return owners;
}

const ownedOnce = (owners: Map<string, string[]>): boolean => [...owners.values()].every((o) => o.length === 1);

/**
 * Each target owned once and no replica over its even share (rounded up), so the hand-overs of
 * replicas started one after another are over: "owned once" alone is also true while the first
 * replica still holds everything, and a target it then gives back is briefly sampled by no one.
 */
function settled(owners: Map<string, string[]>, replicas: readonly Replica[]): boolean {
  if (!ownedOnce(owners)) return false;
  const share = Math.ceil(owners.size / replicas.length);
  const counts = new Map<string, number>();
  for (const [owner] of owners.values()) if (owner !== undefined) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  return replicas.every((replica) => (counts.get(replica.name) ?? 0) <= share);
}

async function until(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
  why: () => Promise<string> = () => Promise.resolve(''),
): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) {
      const detail = await why().catch((error: unknown) => `(could not say why: ${String(error)})`);
      throw new Error(`team: ${what} not within ${timeoutMs / 1000} s${detail === '' ? '' : `: ${detail}`}`);
    }
    await sleep(everyMs);
  }
  return Date.now() - started;
}

/** The targets a replica does not list as live, with their state and its reason (a timeout's "why"). */
async function notLive(url: string): Promise<string> {
  const targets = targetListSchema.parse(
    await (await fetch(new URL('/api/targets', url), { headers: AS_USER })).json(),
  );
  const waiting = targets.filter((t) => t.unwatchedSince !== undefined || t.status.state !== 'live');
  const shown = waiting
    .slice(0, 8)
    .map(
      (t) =>
        `${t.id} ${t.unwatchedSince === undefined ? t.status.state : 'unwatched'}${t.status.message === null ? '' : ` (${t.status.message})`}`,
    );
  return `${waiting.length} of ${targets.length} not live: ${shown.join('; ')}${waiting.length > shown.length ? '; …' : ''}`;
}

interface Window {
  seconds: number;
  cpuPercent: number[];
  latencyP95Ms: number;
  remoteLatencyP95Ms: number | null;
  framesPerViewerPerSecond: number;
  viewersOnOwner: number;
  disconnects: number;
  storeBytes: number;
  /** The whole machine's busy time over the window, in cores (this machine has os.cpus().length). */
  machineBusyCores: number;
  /** The bench's viewer processes (load the replicas do not cause but share the cores with). */
  viewersCpuPercent: number;
}

/**
 * Viewers and CPU over one window: each replica, and the helpers' processes by pid. `pools` null:
 * a window without viewers (their figures NaN, their CPU 0).
 */
async function measureWindow(
  seconds: number,
  pids: readonly number[],
  pools: { all: ViewerPool; remote: ViewerPool | null } | null,
  storeBytes: () => Promise<number>,
): Promise<Window> {
  const bytesBefore = await storeBytes();
  await pools?.all.measureStart();
  await pools?.remote?.measureStart();
  const viewerPids = [pools?.all.pid, pools?.remote?.pid].filter((pid) => pid !== undefined);
  const viewersCpu = (): number => viewerPids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
  const before = pids.map((pid) => treeCpuSeconds(pid));
  const viewersBefore = viewersCpu();
  const machineBefore = machineCpuSeconds();
  const started = performance.now();
  await sleep(seconds * 1000);
  const after = pids.map((pid) => treeCpuSeconds(pid));
  const viewersAfter = viewersCpu();
  const machineAfter = machineCpuSeconds();
  const wall = (performance.now() - started) / 1000;
  const all = (await pools?.all.measureStop()) ?? null;
  const remote = (await pools?.remote?.measureStop()) ?? null;
  return {
    seconds: wall,
    cpuPercent: after.map((a, i) => (100 * (a - (before[i] ?? a))) / wall),
    latencyP95Ms: all?.latency.p95 ?? Number.NaN,
    remoteLatencyP95Ms: remote?.latency.p95 ?? null,
    framesPerViewerPerSecond:
      all === null ? Number.NaN : all.framesPerViewer.reduce((a, b) => a + b, 0) / all.viewers / all.seconds,
    viewersOnOwner: all?.viewersOnOwner ?? 0,
    disconnects: all?.disconnects ?? 0,
    storeBytes: (await storeBytes()) - bytesBefore,
    machineBusyCores: (machineAfter.busy - machineBefore.busy) / wall,
    viewersCpuPercent: (100 * (viewersAfter - viewersBefore)) / wall,
  };
}

interface Kill {
  victim: string;
  targets: number;
  failoverMs: number;
  framesLost: number;
  /** Of framesLost, those before the kill: sampled by the victim but not yet in the store. */
  framesUnwritten: number;
  duplicates: number;
}

/** kill -9 of the replica owning most targets: until each is owned again and live, then what the store kept. */
async function killOwner(
  fleet: ReplicaFleet,
  replicas: Replica[],
  ids: readonly string[],
  round: number,
  adapterUrl: string,
): Promise<Kill> {
  const owners = await ownersOf(fleet, replicas, ids);
  const count = (r: Replica): number => [...owners.values()].filter((o) => o.includes(r.name)).length;
  const victim = [...replicas].sort((a, b) => count(b) - count(a))[0] as Replica;
  const lost = ids.filter((id) => owners.get(id)?.includes(victim.name));
  victim.run.child.kill('SIGKILL');
  await victim.run.exited;
  const killedAt = Date.now();
  const survivors = replicas.filter((r) => r !== victim);
  const survivor = survivors[0] as Replica;
  await until(
    async () => {
      if (!ownedOnce(await ownersOf(fleet, survivors, ids))) return false;
      const listed = targetListSchema.parse(
        await (await fetch(new URL('/api/targets', survivor.url), { headers: AS_USER })).json(),
      );
      return lost.every((id) => (listed.find((t) => t.id === id)?.status.lastFrameAt ?? 0) > killedAt);
    },
    30_000,
    `takeover of ${lost.length} targets`,
    50,
    async () => {
      const owners = await ownersOf(fleet, survivors, ids);
      const wrong = [...owners].filter(([, o]) => o.length !== 1).map(([id, o]) => `${id} owned by ${o.length}`);
      return `${wrong.slice(0, 8).join(', ') || 'each owned once'}; ${await notLive(survivor.url)}`;
    },
  );
  const failoverMs = Date.now() - killedAt;
  await sleep(1_500); // the new owners' first batches reach the store
  let framesLost = 0;
  let framesUnwritten = 0;
  let duplicates = 0;
  for (const id of lost) {
    const url = new URL(`/api/targets/${id}/history/frames?from=${killedAt - 5_000}&to=${Date.now()}`, survivor.url);
    const times = historyFramesSchema
      .parse(await (await fetch(url, { headers: AS_USER })).json())
      .frames.map((f) => f.t);
    duplicates += times.length - new Set(times).size;
    // The gap across the kill only (the window may also hold the handover of the replica's return).
    const last = times.filter((t) => t <= killedAt).at(-1) ?? killedAt;
    const next = times.find((t) => t > killedAt) ?? last;
    framesLost += Math.max(0, Math.round((next - last) / (1000 / RATE_HZ)) - 1);
    framesUnwritten += Math.max(0, Math.round((killedAt - last) / (1000 / RATE_HZ)) - 1);
  }
  // Back to three: the killed one comes back and takes its share again.
  // Under a name nginx.conf does not list (it listens on another port): reached through the shared upstream.
  const back = await fleet.replica(`${victim.name}-${round}`, [
    '--adapter',
    adapterUrl,
    '--replica-name',
    `${victim.name}-${round}`,
    ...ACCESS_FLAGS,
  ]);
  replicas.splice(replicas.indexOf(victim), 1, { name: victim.name, ...back });
  await until(
    async () => settled(await ownersOf(fleet, replicas, ids), replicas),
    30_000,
    'ownership after the return',
    200,
    async () => {
      const owners = await ownersOf(fleet, replicas, ids);
      const counts = replicas.map((r) => `${r.name} ${[...owners.values()].filter((o) => o.includes(r.name)).length}`);
      const wrong = [...owners].filter(([, o]) => o.length !== 1).map(([id, o]) => `${id} owned by ${o.length}`);
      return `owned per replica: ${counts.join(', ')} (share ${Math.ceil(ids.length / replicas.length)}); ${wrong.slice(0, 8).join(', ') || 'each owned once'}; ${await notLive(back.url)}`;
    },
  );
  // The returned replica, usually the next victim (it took a full share), records for a few
  // seconds before the next kill: killed 2 s after a handover it had not stored its first
  // seconds yet, and the next kill's "not yet stored" counted the return's handover gap too.
  await sleep(6_000);
  return { victim: victim.name, targets: lost.length, failoverMs, framesLost, framesUnwritten, duplicates };
}

/**
 * Team: three replicas (a PostgreSQL 18 store, a real Redis, nginx in front), targets spread over
 * a few watched clusters (several target entries per cluster), viewers through nginx and a few
 * on a replica for targets it does not sample; then kills of the busiest owner; then one process
 * with the embedded store on the same targets and viewers.
 */
export async function runTeam(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  const size = options.quick ? QUICK : FULL;
  // Every aioscope process runs as a team runs it: the bundle `npm start` and the image run, not
  // the sources through tsx (which keeps costing after start-up), on --team-node when given.
  await ensureStartBuilt(false);
  const node = options.teamNode ?? process.execPath;
  const nodeVersion = nodeVersionOf(node);
  const run = { node, entry: START_ENTRY };
  log(`team: every aioscope process runs build/start/cli.js on node ${nodeVersion}`);
  return using(async (cleanups) => {
    const ids = Array.from({ length: size.targets }, (_, i) => `t${i}`);
    const [fleet, redis] = await Promise.all([
      startReplicaFleet('bench-team', ids, { watchedServers: size.servers, headers: AS_USER, run }),
      startRedis(),
    ]);
    cleanups.add('team fleet', () => fleet.stop());
    cleanups.add('redis', () => Promise.resolve(redis.stop()));
    const everyTargetLive = async (url: string, what: string): Promise<void> => {
      await until(
        async () => (await fleet.sampled(url)).length === ids.length,
        60_000,
        what,
        500,
        () => notLive(url),
      );
    };
    const replicas: Replica[] = [];
    for (const name of ['a', 'b', 'c']) {
      const started = await fleet.replica(name, ['--adapter', redis.url, '--replica-name', name, ...ACCESS_FLAGS]);
      replicas.push({ name, ...started });
    }
    const nginx = await startTeamNginx(replicas.map((r) => Number(new URL(r.url).port)));
    cleanups.add('nginx', () => nginx.stop());
    await until(
      async () => settled(await ownersOf(fleet, replicas, ids), replicas),
      60_000,
      'each target owned once, shares even',
      500,
    );
    await everyTargetLive(nginx.url, 'every target live');

    const store = await connect(fleet.store, { database: 'team' });
    cleanups.add('store session', () => store.end());
    const dbBytes = async (): Promise<number> =>
      Number((await store.query<{ n: string }>("SELECT pg_database_size('team') AS n")).rows[0]?.n);
    const storePid = postmasterPid(path.join(TEST_DATA_ROOT, 'bench-team-store'));
    const watchedPids = Array.from({ length: size.servers }, (_, i) =>
      postmasterPid(path.join(TEST_DATA_ROOT, i === 0 ? 'bench-team-watched' : `bench-team-watched-${i}`)),
    );
    // Indexes: replicas 0-2, redis 3, store 4, nginx 5, then the watched clusters.
    const pids = [
      ...replicas.map((r) => r.run.child.pid ?? 0),
      redis.pid() ?? 0,
      storePid,
      nginx.pid ?? 0,
      ...watchedPids,
    ];
    const watchedCpu = (w: Window): number => w.cpuPercent.slice(6).reduce((a, b) => a + b, 0);
    const viewerCount = size.viewers + size.remoteViewers;
    const logWindow = (what: string, w: Window): void =>
      log(
        `team: ${what}: replicas ${w.cpuPercent
          .slice(0, 3)
          .map((c) => fmt(c))
          .join(
            ', ',
          )} % of a core; redis ${fmt(w.cpuPercent[3] ?? 0)} %, store ${fmt(w.cpuPercent[4] ?? 0)} %, nginx ${fmt(w.cpuPercent[5] ?? 0)} %, viewers ${fmt(w.viewersCpuPercent)} %, watched clusters ${fmt(watchedCpu(w))} %; machine ${fmt(w.machineBusyCores, 2)} of ${cpus().length} cores busy`,
      );

    // A: the viewers through nginx, each following its target to its owner as the page does
    // (?replica=NAME), and a few on replica b for targets it does not sample (the remote p95: a
    // viewer whose page could not follow, relayed through Redis). B: the same, with the nginx
    // viewers left where nginx puts them (they follow no names and keep no cookie, so they are
    // spread socket by socket), so every target is relayed. Then A again: the two A windows
    // around B show what the order and the machine's load did.
    const routed = await ViewerPool.start(cleanups);
    const remote = await ViewerPool.start(cleanups);
    const onB = async (): Promise<string[]> => {
      const owners = await ownersOf(fleet, replicas, ids);
      return ids.filter((id) => !(owners.get(id) ?? []).includes('b'));
    };
    // withRemote false: every viewer on its owner, nothing relayed (the best case, window "all on owners").
    const routedWindow = async (withRemote = true): Promise<Window> => {
      const routedCount = withRemote ? size.viewers : size.viewers + size.remoteViewers;
      await routed.setViewers(nginx.url, routedCount, ids, true, AS_USER);
      if (withRemote) await remote.setViewers(replicas[1]?.url ?? '', size.remoteViewers, await onB(), false, AS_USER);
      await sleep(3_000);
      const window = await measureWindow(
        size.seconds,
        pids,
        { all: routed, remote: withRemote ? remote : null },
        dbBytes,
      );
      await routed.setViewers(nginx.url, 0);
      if (withRemote) await remote.setViewers(replicas[1]?.url ?? '', 0);
      return window;
    };
    // What a replica costs per target that nobody watches: a team's usual case, most of its
    // servers sampled and recorded with no page open on them.
    await sleep(5_000);
    const unwatched = await measureWindow(size.seconds, pids, null, dbBytes);
    logWindow('no viewer', unwatched);
    const allOnOwners = await routedWindow(false);
    logWindow('every viewer on its owner', allOnOwners);
    const team = await routedWindow();
    logWindow('viewers on their owners, a few relayed (A)', team);
    const spreadPool = await ViewerPool.start(cleanups);
    await spreadPool.setViewers(nginx.url, size.viewers, ids, false, AS_USER);
    await remote.setViewers(replicas[1]?.url ?? '', size.remoteViewers, await onB(), false, AS_USER);
    await sleep(3_000);
    const spread = await measureWindow(size.seconds, pids, { all: spreadPool, remote }, dbBytes);
    logWindow('viewers spread by nginx (B)', spread);
    await remote.setViewers(replicas[1]?.url ?? '', 0);
    await spreadPool.stop();
    // The owners forget the viewers that left the other replicas within INTEREST_TTL_MS.
    await sleep(INTEREST_TTL_MS + 1_000);
    const again = await routedWindow();
    logWindow('viewers on their owners, a few relayed, again (A)', again);
    await remote.stop();
    const [redisCpu, storeCpu] = team.cpuPercent.slice(3);
    const perTarget = (w: Window): number[] => w.cpuPercent.slice(0, 3).map((cpu) => cpu / (size.targets / 3));
    const perTargetPerReplica = perTarget(team);
    const all = routed;
    await all.setViewers(nginx.url, viewerCount, ids, true, AS_USER);

    const kills: Kill[] = [];
    for (let k = 0; k < size.kills; k++) {
      kills.push(await killOwner(fleet, replicas, ids, k, redis.url));
      log(`team: kill ${k + 1}: ${JSON.stringify(kills.at(-1))}`);
    }
    await all.stop();
    await nginx.stop();
    for (const replica of replicas) replica.run.child.kill('SIGKILL');

    // One replica holding every target (the others gone, their locks with their sessions), its
    // viewers connected to it directly as the one process's are below: what a replica costs per
    // target with the shared store and Redis, apart from what splitting the targets over three
    // processes costs.
    const solo = await fleet.replica('solo', ['--adapter', redis.url, '--replica-name', 'solo', ...ACCESS_FLAGS]);
    await until(
      async () => (await fleet.owned(solo.url)).length === ids.length,
      60_000,
      'one replica: every target owned',
      500,
    );
    await everyTargetLive(solo.url, 'one replica: every target live');
    const soloViewers = await ViewerPool.start(cleanups);
    await soloViewers.setViewers(solo.url, viewerCount, ids, false, AS_USER);
    await sleep(3_000);
    const soloPid = solo.run.child.pid ?? 0;
    const oneReplica = await measureWindow(
      size.seconds,
      [soloPid, redis.pid() ?? 0, storePid, ...watchedPids],
      { all: soloViewers, remote: null },
      dbBytes,
    );
    log(
      `team: one replica holding every target: ${fmt(oneReplica.cpuPercent[0] ?? 0)} % of a core; redis ${fmt(oneReplica.cpuPercent[1] ?? 0)} %, store ${fmt(oneReplica.cpuPercent[2] ?? 0)} %; machine ${fmt(oneReplica.machineBusyCores, 2)} of ${cpus().length} cores busy`,
    );
    await soloViewers.stop();
    solo.run.child.kill('SIGKILL');

    // One process, the embedded DuckDB store, the same targets and viewers.
    const dir = path.join(BENCH_DATA_DIR, 'team-single');
    const single = await startCliChild(
      'aioscope single process',
      ['--targets', fleet.targetsFile, '--port', '0', '--data-dir', dir],
      cleanups,
      { env: { PGPASSFILE: fleet.passFile }, ...run },
    );
    await everyTargetLive(single.url, 'single: every target live');
    const historyBytes = (): Promise<number> => folderBytes(path.join(dir, 'history'));
    // Where one process's CPU per target goes: sampling and recording with no viewer first, then
    // the viewers' fan-out on top, then (below) the round trips alone.
    await sleep(10_000);
    const aloneUnwatched = await measureWindow(size.seconds, [single.pid, ...watchedPids], null, historyBytes);
    const viewers = await ViewerPool.start(cleanups);
    await viewers.setViewers(single.url, size.viewers + size.remoteViewers, ids);
    await sleep(3_000);
    const alone = await measureWindow(
      size.seconds,
      [single.pid, ...watchedPids],
      { all: viewers, remote: null },
      historyBytes,
    );
    await viewers.stop();
    await stopCliChild(single.run);

    // The floor under every row above: node-postgres running the fast statement for each target
    // at 20 Hz and dropping the answers, what no code of aioscope's can remove short of another
    // client or protocol.
    const floor = await startRoundTripFloor('team: round-trip floor', fleet.targetUrls, cleanups, {
      node,
      env: { PGPASSFILE: fleet.passFile },
    });
    await sleep(5_000);
    const floorWindow = await measureWindow(size.seconds, [floor.pid, ...watchedPids], null, () => Promise.resolve(0));
    await stopCliChild(floor.run);

    const mbPerTargetHour = (bytes: number, seconds: number): number => bytes / size.targets / (seconds / 3600) / 1e6;
    const breakdown = (windows: readonly Window[]): string =>
      windows.map((w) => fmt((w.cpuPercent[0] ?? 0) / size.targets, 3)).join(' / ');
    const failovers = kills.map((k) => k.failoverMs);
    const duplicates = kills.reduce((sum, k) => sum + k.duplicates, 0);
    const result = {
      size,
      node: nodeVersion,
      entry: 'build/start/cli.js',
      unwatched,
      allOnOwners,
      team: { ...team, perTargetPerReplica },
      spread,
      again,
      kills,
      oneReplica,
      single: alone,
      singleUnwatched: aloneUnwatched,
      floor: floorWindow,
    };
    writeResult(options.quick ? 'team-quick' : 'team', result);
    const condition = `the bundle on node ${nodeVersion}; ${size.targets} targets × ${RATE_HZ} Hz on ${size.servers} clusters, ${size.viewers} viewers through nginx each following its target to its owner (?replica=) and ${size.remoteViewers} on replica b for targets it does not sample (relayed), ${size.seconds} s`;
    const cpuOf = (w: Window): string =>
      `per target per replica ${perTarget(w)
        .map((c) => fmt(c, 2))
        .join(' / ')} % of a core (replicas ${w.cpuPercent
        .slice(0, 3)
        .map((c) => fmt(c))
        .join(
          ' / ',
        )} %, redis ${fmt(w.cpuPercent[3] ?? 0)} %, nginx ${fmt(w.cpuPercent[5] ?? 0)} %, the bench's viewers ${fmt(w.viewersCpuPercent)} %, the watched clusters ${fmt(watchedCpu(w))} %; the machine ${fmt(w.machineBusyCores, 2)} of ${cpus().length} cores busy)`;
    return [
      {
        measurement: 'team',
        condition: `3 replicas: ${condition}`,
        result: `A: ${cpuOf(team)}; A again after B: ${cpuOf(again)}; all ${size.viewers + size.remoteViewers} on their owners, nothing relayed: ${cpuOf(allOnOwners)}; no viewer at all (sampling and recording only): ${cpuOf(unwatched)}; viewers got ${fmt(team.framesPerViewerPerSecond)} frames/s, ${team.viewersOnOwner} of ${size.viewers} through nginx on their target's owner, ${team.disconnects} disconnects`,
        target: `≤ ${GOALS.cpuPerTargetPercent} %`,
        verdict: verdict(max([...perTargetPerReplica, ...perTarget(again)]) <= GOALS.cpuPerTargetPercent),
      },
      {
        measurement: 'team',
        condition: 'redis-server and the store’s PostgreSQL, window A',
        result: `redis ${fmt((redisCpu ?? 0) / size.targets, 3)} %, store ${fmt((storeCpu ?? 0) / size.targets, 3)} % of a core per target; store ${fmt(mbPerTargetHour(team.storeBytes, team.seconds))} MB per target-hour (database growth)`,
        target: 'reported',
        verdict: verdict(null),
      },
      {
        measurement: 'team',
        condition: `B, between the A windows: the same targets, ${size.viewers} viewers through nginx left where it puts them (following no replica names, keeping no cookie) and ${size.remoteViewers} on replica b for targets it does not sample, ${size.seconds} s`,
        result: cpuOf(spread),
        target: `≤ ${GOALS.cpuPerTargetPercent} %`,
        verdict: verdict(max(perTarget(spread)) <= GOALS.cpuPerTargetPercent),
      },
      {
        measurement: 'team',
        condition: `sample → viewer: ${size.remoteViewers} viewers on a replica for targets it does not sample, in window A (the other viewers on their owners, as the page routes them)`,
        result: `p95 ${fmt(team.remoteLatencyP95Ms ?? Number.NaN)} ms, again ${fmt(again.remoteLatencyP95Ms ?? Number.NaN)} ms (A's viewers on their owners: p95 ${fmt(team.latencyP95Ms)} ms; in B, every target relayed: remote p95 ${fmt(spread.remoteLatencyP95Ms ?? Number.NaN)} ms, the others ${fmt(spread.latencyP95Ms)} ms; the machine ${fmt(team.machineBusyCores, 2)} of ${cpus().length} cores busy in A, ${fmt(spread.machineBusyCores, 2)} in B)`,
        target: `≤ ${GOALS.remoteP95Ms} ms`,
        verdict: verdict(
          max([team.remoteLatencyP95Ms ?? Infinity, again.remoteLatencyP95Ms ?? Infinity]) <= GOALS.remoteP95Ms,
        ),
      },
      {
        measurement: 'team',
        condition: `kill -9 of the busiest owner (${kills.map((k) => k.targets).join(', ')} targets), ${kills.length} kills`,
        result: `until owned and live again: median ${fmt(median(failovers) / 1000, 2)} s, max ${fmt(max(failovers) / 1000, 2)} s; frames lost in the handover ${kills.map((k) => `${String(k.framesLost)} (${String(k.framesUnwritten)} sampled before the kill, not yet stored)`).join(', ')} (summed over the victim's targets); duplicate frames ${duplicates}`,
        target: `≤ ${GOALS.failoverMs / 1000} s, 0 duplicates`,
        verdict: verdict(max(failovers) <= GOALS.failoverMs && duplicates === 0),
      },
      {
        measurement: 'team',
        condition: `one replica holding all ${size.targets} targets (the shared store, Redis), its ${viewerCount} viewers connected to it directly, ${size.seconds} s`,
        result: `${fmt(oneReplica.cpuPercent[0] ?? 0)} % of a core (${fmt((oneReplica.cpuPercent[0] ?? 0) / size.targets, 2)} % per target; redis ${fmt(oneReplica.cpuPercent[1] ?? 0)} %, the store ${fmt(oneReplica.cpuPercent[2] ?? 0)} %, the bench's viewers ${fmt(oneReplica.viewersCpuPercent)} %, the watched clusters ${fmt(oneReplica.cpuPercent.slice(3).reduce((a, b) => a + b, 0))} %; the machine ${fmt(oneReplica.machineBusyCores, 2)} of ${cpus().length} cores busy), sample → viewer p95 ${fmt(oneReplica.latencyP95Ms)} ms`,
        target: 'comparison',
        verdict: verdict(null),
      },
      {
        measurement: 'team',
        condition: `one process, embedded store, the bundle on node ${nodeVersion}: ${size.targets} targets, ${size.viewers + size.remoteViewers} viewers, ${size.seconds} s`,
        result: `${fmt(alone.cpuPercent[0] ?? 0)} % of a core (${fmt((alone.cpuPercent[0] ?? 0) / size.targets, 2)} % per target; the bench's viewers ${fmt(alone.viewersCpuPercent)} %, the watched clusters ${fmt(alone.cpuPercent.slice(1).reduce((a, b) => a + b, 0))} %; the machine ${fmt(alone.machineBusyCores, 2)} of ${cpus().length} cores busy), sample → viewer p95 ${fmt(alone.latencyP95Ms)} ms, store ${fmt(mbPerTargetHour(alone.storeBytes, alone.seconds))} MB per target-hour (DuckDB folder growth); no failover`,
        target: 'comparison',
        verdict: verdict(null),
      },
      {
        measurement: 'team',
        condition: `where one process's CPU per target goes (${size.targets} targets × ${RATE_HZ} Hz, node ${nodeVersion}, ${size.seconds} s each): the round trips alone (roundTripFloor.mjs: node-postgres, one session per target, the prepared fast statement, answers dropped); the one process sampling and recording with no viewer; with its ${size.viewers + size.remoteViewers} viewers (the row above)`,
        result: `${breakdown([floorWindow, aloneUnwatched, alone])} % of a core per target (the machine ${[floorWindow, aloneUnwatched, alone].map((w) => fmt(w.machineBusyCores, 2)).join(' / ')} of ${cpus().length} cores busy)`,
        target: 'reported',
        verdict: verdict(null),
      },
    ];
  }, parent);
}
