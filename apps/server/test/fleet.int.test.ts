import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  historyExtentSchema,
  historyFramesSchema,
  OVERVIEW_STEP_MS,
  overviewSchema,
  targetListSchema,
  targetSummarySchema,
  type Overview,
} from '@aioscope/spec';
import { parseConfig } from '../src/config/config.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { startAioscope, type RunningAioscope } from '../src/app/server.ts';
import { runCli } from './support/cliProcess.ts';
import { startDebianPostgres, type DebianPostgres } from './support/debianPostgres.ts';
import { waitUntil } from './support/polling.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

const quiet = { info: (): void => undefined, warn: (): void => undefined };

/** The postmaster and every process it started: SIGSTOP on all of them freezes the server whole. */
function clusterPids(server: EmbeddedPostgresServer): number[] {
  const postmaster = Number(readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid (after the parenthesised command name).
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** A signal to processes that may have exited meanwhile (a backend whose session ended). */
function signal(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone already
    }
  }
}

describe('many targets in one aioscope', () => {
  let live: EmbeddedPostgresServer;
  let frozen: EmbeddedPostgresServer;
  let pg15: DebianPostgres;
  let dir: string;
  let file: string;
  const savedPassFile = process.env.PGPASSFILE;

  const urlOf = (server: EmbeddedPostgresServer): string =>
    `postgres://${String(server.connectionConfig.user)}@127.0.0.1:${server.port}/postgres`;

  async function start(targetsFile: string, record = false): Promise<RunningAioscope> {
    const flags = ['--targets', targetsFile, '--port', '0', '--data-dir', dir, ...(record ? [] : ['--no-record'])];
    const parsed = parseConfig(flags, {});
    if (parsed.ok !== true) throw new Error(JSON.stringify(parsed));
    return startAioscope(parsed.config, quiet);
  }

  async function overview(running: RunningAioscope): Promise<Overview> {
    return overviewSchema.parse((await running.app.inject('/api/overview')).json());
  }

  beforeAll(async () => {
    [live, frozen, pg15] = await Promise.all([
      startTestPostgres('fleet-live'),
      startTestPostgres('fleet-frozen'),
      startDebianPostgres(15),
    ]);
    dir = await mkdtemp(path.join(tmpdir(), 'aioscope-fleet-'));
    file = path.join(dir, 'fleet.yml');
    // The file holds no password: the embedded clusters' random ones come from a pgpass file.
    const passFile = path.join(dir, 'pgpass');
    const line = (s: EmbeddedPostgresServer): string =>
      `127.0.0.1:${s.port}:*:${String(s.connectionConfig.user)}:${String(s.connectionConfig.password)}`;
    // A role without grants on the live cluster (no pg_read_all_stats, no pg_monitor).
    const admin = await connect(live);
    await admin.query(`CREATE ROLE fleet_plain LOGIN PASSWORD 'fleet-plain-pw'`);
    await admin.end();
    await writeFile(passFile, `${line(live)}\n${line(frozen)}\n127.0.0.1:${live.port}:*:fleet_plain:fleet-plain-pw\n`);
    await chmod(passFile, 0o600);
    process.env.PGPASSFILE = passFile;
  });

  afterAll(async () => {
    if (savedPassFile === undefined) delete process.env.PGPASSFILE;
    else process.env.PGPASSFILE = savedPassFile;
    await Promise.all([live?.stop(), frozen?.stop(), pg15?.stop()]);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('keeps sampling the live servers while one is frozen (SIGSTOP) and one refused', async () => {
    await writeFile(
      file,
      [
        `- name: live one\n  url: ${urlOf(live)}\n  labels: { env: prod }`,
        `- name: live two\n  url: ${urlOf(live)}`,
        `- name: frozen\n  url: ${urlOf(frozen)}`,
        `- name: old\n  url: ${pg15.url}`,
      ].join('\n'),
    );
    const running = await start(file);
    // Listed once the monitor's sessions are connected (below): a backend forked after the list
    // was taken would keep answering while the rest of the cluster is stopped.
    let pids: number[] = [];
    try {
      await waitUntil(
        async () => {
          const rows = (await overview(running)).rows;
          const state = (id: string): string | undefined => rows.find((r) => r.target.id === id)?.target.status.state;
          return ['live-one', 'live-two', 'frozen'].every((id) => state(id) === 'live') && state('old') === 'error';
        },
        60_000,
        'three live targets and one refused',
      );
      pids = clusterPids(frozen);
      signal(pids, 'SIGSTOP');
      // Until the overview calls the frozen server stale (no frame for 10 s) or disconnected, and the
      // live ones have drawn a sparkline over their sampling window.
      let rows: Overview['rows'] = [];
      await waitUntil(
        async () => {
          rows = (await overview(running)).rows;
          const reason = rows.find((r) => r.target.id === 'frozen')?.attention.reasons[0]?.kind;
          // More than a second of samples at 20 Hz in the sparkline's steps.
          const drawn = (id: string): boolean =>
            (rows.find((r) => r.target.id === id)?.sparkline.points.reduce((n, p) => n + p.frames, 0) ?? 0) > 20;
          return (reason === 'stale' || reason === 'disconnected') && drawn('live-one') && drawn('live-two');
        },
        30_000,
        'the frozen server called stale or disconnected, the live ones drawn',
        250,
      );
      const row = (id: string): Overview['rows'][number] => {
        const found = rows.find((r) => r.target.id === id);
        if (found === undefined) throw new Error(`no row for ${id}`);
        return found;
      };
      // Most in need of attention first: refused, then the frozen one (stale: live but no frame for
      // 10 s; or disconnected once the session's own timeout gave up on it).
      expect(rows.map((r) => r.target.id).slice(0, 2)).toEqual(['old', 'frozen']);
      expect(row('old').attention.reasons[0]?.kind).toBe('refused');
      expect(row('old').attention.reasons[0]?.message).toMatch(/15/);
      // Its target_info says what answered, with no empty label (it has no io_method before 18).
      const info = (await running.app.inject('/metrics')).body
        .split('\n')
        .find((line) => line.startsWith('aioscope_target_info{') && line.includes('target="old"'));
      expect(info).toMatch(/version="15\.\d+[^"]*"/);
      expect(info).not.toMatch(/=""/);
      expect(['stale', 'disconnected']).toContain(row('frozen').attention.reasons[0]?.kind);
      expect(row('frozen').sampling.achievedHz).toBeLessThan(1);
      for (const id of ['live-one', 'live-two']) {
        // Requested 20 Hz; half of it is a bound a busy 2-core machine keeps, a frozen peer would break.
        expect(row(id).sampling.achievedHz, id).toBeGreaterThan(10);
        expect(row(id).sampling.requested).toBe(20);
        expect(row(id).sampling.dbCostShare).toBeGreaterThan(0);
        expect(row(id).target.status.state).toBe('live');
        // 10 s steps, whole steps apart, none holding more than 10 s of samples at 20 Hz (and some
        // timer slack): the 1 s roll-ups merged, not the whole window in one.
        const { stepMs, points } = row(id).sparkline;
        expect(stepMs).toBe(OVERVIEW_STEP_MS);
        expect(points.length).toBeGreaterThan(0);
        points.slice(1).forEach((point, i) => expect((point.t - (points[i]?.t ?? 0)) % stepMs).toBe(0));
        for (const point of points) expect(point.frames).toBeLessThanOrEqual((stepMs / 1000) * 20 * 1.5);
      }
      expect(row('live-one').labels).toEqual({ env: 'prod' });
      // Nothing the browser gets names a password.
      const body = (await running.app.inject('/api/overview')).body;
      expect(body).not.toContain(String(live.connectionConfig.password));
      signal(pids, 'SIGCONT');
      await waitUntil(
        async () => (await overview(running)).rows.find((r) => r.target.id === 'frozen')?.attention.score === 0,
        30_000,
        'the thawed server to need no attention',
      );
    } finally {
      signal(pids, 'SIGCONT');
      await running.close();
    }
  });

  it('puts a role without grants above healthy servers, with a metric and the GRANT that fixes it', async () => {
    await writeFile(
      file,
      [
        `- name: granted\n  url: ${urlOf(live)}`,
        `- name: plain\n  url: postgres://fleet_plain@127.0.0.1:${live.port}/postgres`,
      ].join('\n'),
    );
    const running = await start(file);
    try {
      await waitUntil(
        async () =>
          (await overview(running)).rows.every(
            (r) => r.target.status.state === 'live' && r.target.capabilities !== null,
          ),
        60_000,
        'both targets live with their privileges read',
      );
      const rows = (await overview(running)).rows;
      // Live, like a healthy server, yet first: it cannot show reads in flight nor others' waits.
      expect(rows.map((r) => r.target.id)).toEqual(['plain', 'granted']);
      const [plain, granted] = rows;
      expect(plain?.target.status.state).toBe('live');
      expect(plain?.target.capabilities).toMatchObject({ canReadPgAios: false, canSeeAllActivity: false });
      expect(plain?.attention.reasons.map((r) => r.kind)).toContain('missingPrivileges');
      expect(plain?.attention.reasons.find((r) => r.kind === 'missingPrivileges')?.message).toMatch(
        /GRANT pg_read_all_stats/,
      );
      expect(granted?.attention.reasons.map((r) => r.kind)).not.toContain('missingPrivileges');

      const metrics = (await running.app.inject('/metrics')).body;
      const privilege = (target: string, name: string): string | undefined =>
        metrics
          .split('\n')
          .find((l) => l.startsWith('aioscope_role_privilege{') && l.includes(`target="${target}"`) && l.includes(name))
          ?.split(' ')
          .at(-1);
      expect(privilege('plain', 'privilege="read_pg_aios"')).toBe('0');
      expect(privilege('plain', 'privilege="see_all_activity"')).toBe('0');
      expect(privilege('granted', 'privilege="read_pg_aios"')).toBe('1');
      expect(privilege('granted', 'privilege="see_all_activity"')).toBe('1');
    } finally {
      await running.close();
    }
  });

  it('reloads the targets file: starts added, stops removed, leaves the unchanged one alone', async () => {
    await writeFile(file, `- name: one\n  url: ${urlOf(live)}\n- name: two\n  url: ${urlOf(live)}\n`);
    // Recording on: the recorder follows the reload too.
    const running = await start(file, true);
    try {
      const one = running.monitors.get('one');
      await waitUntil(() => one?.currentStatus().state === 'live', 30_000, 'target one live');
      const since = one?.currentStatus().since;
      await waitUntil(
        async () => ((await running.history.get('two')?.extent())?.raw ?? null) !== null,
        30_000,
        'samples of two recorded',
      );

      // Edited in place: the folder watch sees it.
      await writeFile(file, `- name: one\n  url: ${urlOf(live)}\n- name: three\n  url: ${urlOf(frozen)}\n`);
      await waitUntil(
        () => running.monitors.has('three') && !running.monitors.has('two'),
        10_000,
        'the reload to add three and remove two',
      );
      // Two is listed after the watched ones, marked as no longer watched.
      const listed = targetListSchema.parse((await running.app.inject('/api/targets')).json());
      expect(listed.map((t) => [t.id, t.unwatchedSince !== undefined])).toEqual([
        ['one', false],
        ['three', false],
        ['two', true],
      ]);
      const two = await running.app.inject('/api/targets/two');
      expect(two.statusCode).toBe(200);
      expect(targetSummarySchema.parse(two.json()).unwatchedSince).toBeGreaterThan(0);
      // What it recorded stays readable over HTTP, its extent saying it is no longer recorded.
      const extent = await running.app.inject('/api/targets/two/history');
      expect(extent.statusCode).toBe(200);
      const parsed = historyExtentSchema.parse(extent.json());
      expect(parsed.raw).not.toBeNull();
      expect(parsed.recording).toMatchObject({ state: 'off', reason: expect.stringMatching(/no longer watched/) });
      const from = Math.floor(parsed.raw?.from ?? 0);
      const frames = await running.app.inject(
        `/api/targets/two/history/frames?from=${from}&to=${Math.ceil(parsed.raw?.to ?? 0) + 1}`,
      );
      expect(frames.statusCode).toBe(200);
      expect(historyFramesSchema.parse(frames.json()).frames.length).toBeGreaterThan(0);
      // It has no live server to ask; an id never watched is unknown.
      expect((await running.app.inject('/api/targets/two/audit')).json()).toMatchObject({
        error: expect.stringMatching(/no longer watched/),
      });
      expect((await running.app.inject('/api/targets/does-not-exist/history')).statusCode).toBe(404);
      expect((await running.app.inject('/api/targets/does-not-exist')).statusCode).toBe(404);
      expect(running.monitors.get('one')).toBe(one);
      expect(one?.currentStatus().since).toBe(since);
      await waitUntil(() => running.monitors.get('three')?.currentStatus().state === 'live', 30_000, 'three live');
      await waitUntil(() => running.history.get('three') !== undefined, 10_000, 'a recorder for three');
      // Two's recorder stopped; what it recorded stays readable.
      expect((await running.history.get('two')?.extent())?.recording.state).not.toBe('off');

      // A broken file, then SIGHUP: refused with file, line and target; the running set stays.
      await writeFile(file, `- name: one\n  url: ${urlOf(live)}\n  hots: db1\n`);
      process.kill(process.pid, 'SIGHUP');
      await waitUntil(
        async () => (await overview(running)).targetsFile?.rejected !== null,
        10_000,
        'the broken file to be rejected',
      );
      const state = (await overview(running)).targetsFile;
      expect(state?.rejected).toContain('fleet.yml:3: target "one": unknown key "hots"');
      expect(state?.path).toBe(file);
      expect([...running.monitors.keys()]).toEqual(['one', 'three']);
      expect(running.monitors.get('one')).toBe(one);
      expect(running.monitors.get('one')?.currentStatus().state).toBe('live');
    } finally {
      await running.close();
    }
  });

  it('exits 2 at start on a broken targets file, naming file, line and target', async () => {
    const broken = path.join(dir, 'broken.yml');
    await writeFile(broken, `- name: a\n  url: ${urlOf(live)}\n- name: a\n  url: ${urlOf(live)}\n`);
    const run = runCli(['--targets', broken, '--port', '0', '--no-record', '--data-dir', dir]);
    expect(await run.exited).toBe(2);
    expect(run.stderr().trim()).toBe(`aioscope: ${broken}:3: target "a": duplicate name (first at line 1)`);
  });
});
