import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { labExperimentListSchema, labInfoSchema, type LabExperiment, type LabExperimentInput } from '@aioscope/spec';
import { explainIoMedians, explainIoUnsupportedSentence } from '@aioscope/core';
import { buildApp } from '../src/app/app.ts';
import { LabService } from '../src/lab/labService.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../src/targets/target.ts';
import { connect, embeddedTarget, startTestPostgres, TEST_DATA_ROOT } from './support/testPostgres.ts';

const RESULTS = path.join(TEST_DATA_ROOT, 'lab-results');

async function runToEnd(lab: LabService, input: LabExperimentInput): Promise<LabExperiment> {
  const started = lab.start(input);
  if (!started.ok) throw new Error(started.error);
  await lab.settled();
  const experiment = await lab.get(started.id);
  if (experiment === null) throw new Error('experiment not saved');
  return experiment;
}

describe('scan lab on a real embedded PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;
  let lab: LabService;
  let target: TargetDefinition;

  beforeAll(async () => {
    await rm(RESULTS, { recursive: true, force: true });
    server = await startTestPostgres('lab');
    admin = await connect(server);
    target = embeddedTarget(server);
    lab = new LabService({ target, embedded: server, resultsDir: RESULTS, allowExternal: false });
  });

  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await server?.stop();
  });

  /** Objects in the database, on a fresh connection (the lab's restarts end older ones). */
  async function objectCount(): Promise<number> {
    const client = await connect(server);
    try {
      return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class`)).rows[0]?.n ?? -1;
    } finally {
      await client.end();
    }
  }

  it('reads ~8 kB per read with io_combine_limit 1 and ~128 kB with 16, cold, after verifying 0 % OS residency', async () => {
    const experiment = await runToEnd(lab, {
      tableMb: 64,
      cacheState: 'cold',
      rounds: 2,
      variants: [
        { name: 'icl=1', session: { io_combine_limit: 1 } },
        { name: 'icl=16', session: { io_combine_limit: 16 } },
      ],
    });
    expect(experiment.status, experiment.error ?? '').toBe('done');
    expect(experiment.runs.map((run) => run.variant)).toEqual(['icl=1', 'icl=16', 'icl=1', 'icl=16']);
    for (const run of experiment.runs) {
      expect(run.osResidencyBefore, 'OS cache empty before a cold run').toBe(0);
      expect(run.sharedReadBlocks).toBeGreaterThan(0);
      expect(run.executionMs).toBeGreaterThan(0);
    }
    const [one, sixteen] = experiment.summary;
    expect(one?.medianBytesPerRead).toBeGreaterThan(7 * 1024);
    expect(one?.medianBytesPerRead).toBeLessThan(9 * 1024);
    expect(sixteen?.medianBytesPerRead).toBeGreaterThan(110 * 1024);
    expect(sixteen?.medianBytesPerRead).toBeLessThanOrEqual(128 * 1024);
    expect(experiment.notes.join(' ')).toMatch(/indicative/);
    expect(one?.ratioToBaseline).toBe(1);
    // PostgreSQL 18's EXPLAIN has no IO option: each run keeps that fact, never zeros for figures.
    for (const run of experiment.runs) {
      expect(run.explainIo).toEqual({ serverVersionNum: expect.any(Number), blockSize: 8192, nodes: null });
      expect(run.explainIo?.serverVersionNum).toBeGreaterThanOrEqual(180000);
      expect(run.explainIo?.serverVersionNum).toBeLessThan(190000);
    }
    const medians = explainIoMedians(experiment.runs.map((run) => run.explainIo));
    expect(medians.kind).toBe('unsupported');
    if (medians.kind === 'unsupported') {
      expect(explainIoUnsupportedSentence(medians.serverVersionNum)).toBe(
        'PostgreSQL 18 does not report per-node I/O figures; EXPLAIN IO is new in 19.',
      );
    }
  });

  it('restarts the embedded server per variant for sync vs worker and records io_method per run', async () => {
    const experiment = await runToEnd(lab, {
      tableMb: 32,
      cacheState: 'shared-buffers-cold',
      rounds: 2,
      variants: [
        { name: 'sync', server: { io_method: 'sync' } },
        { name: 'worker', server: { io_method: 'worker' } },
      ],
    });
    expect(experiment.status, experiment.error ?? '').toBe('done');
    expect(experiment.runs.map((run) => `${run.variant}:${run.ioMethod}`)).toEqual([
      'sync:sync',
      'worker:worker',
      'sync:sync',
      'worker:worker',
    ]);
    expect(server.currentSettings.io_method).toBe('worker');
  });

  it('fails fast, before any restart, when io_uring is asked of a build without liburing', async () => {
    const experiment = await runToEnd(lab, {
      tableMb: 16,
      cacheState: 'warm',
      rounds: 1,
      variants: [{ name: 'uring', server: { io_method: 'io_uring' } }],
    });
    expect(experiment.status).toBe('failed');
    expect(experiment.error).toMatch(/no io_uring \(built without liburing\)/);
    expect(experiment.runs).toEqual([]);
    expect(server.currentSettings.io_method).toBe('worker');
  });

  it('refuses on a server that is not the embedded one without --allow-lab, and creates nothing', async () => {
    const external = new LabService({
      target: { ...target, id: 'server', kind: 'external', name: 'app@db1:5432/prod' },
      embedded: null,
      resultsDir: RESULTS,
      allowExternal: false,
    });
    const before = await objectCount();
    const result = external.start({ tableMb: 16, cacheState: 'cold', variants: [{ name: 'a' }] });
    expect(result).toEqual({ ok: false, status: 403, error: expect.stringMatching(/--allow-lab/) });
    const allowed = new LabService({
      target: { ...target, id: 'server', kind: 'external', name: 'app@db1:5432/prod' },
      embedded: null,
      resultsDir: RESULTS,
      allowExternal: true,
    });
    expect(allowed.start({ tableMb: 16, cacheState: 'cold', variants: [{ name: 'a' }] })).toEqual({
      ok: false,
      status: 400,
      error: expect.stringMatching(/confirmTarget = "app@db1:5432\/prod"/),
    });
    expect(
      allowed.start({
        tableMb: 16,
        cacheState: 'cold',
        confirmTarget: 'app@db1:5432/prod',
        variants: [{ name: 'a', server: { io_method: 'sync' } }],
      }),
    ).toMatchObject({ ok: false, status: 400 });
    expect(await objectCount()).toBe(before);
  });

  it('on a server where its role may not create pg_buffercache, fails at once saying who can', async () => {
    // A team's server: a database without the extension, a role that may create tables but is no
    // superuser. A session of its own: the lab's restarts above ended `admin`'s.
    const superuser = await connect(server);
    try {
      await superuser.query('DROP DATABASE IF EXISTS lab_no_extension');
      await superuser.query('DROP ROLE IF EXISTS lab_user');
      await superuser.query("CREATE ROLE lab_user LOGIN PASSWORD 'lab-user-password'");
      await superuser.query('CREATE DATABASE lab_no_extension OWNER lab_user');
    } finally {
      await superuser.end();
    }
    const name = 'lab_user@127.0.0.1/lab_no_extension';
    const external = new LabService({
      target: {
        id: 'team-server',
        kind: 'external',
        name,
        clientConfig: {
          ...target.clientConfig,
          user: 'lab_user',
          password: 'lab-user-password',
          database: 'lab_no_extension',
        },
      },
      embedded: null,
      resultsDir: RESULTS,
      allowExternal: true,
    });
    const experiment = await runToEnd(external, {
      tableMb: 16,
      cacheState: 'warm',
      rounds: 1,
      confirmTarget: name,
      variants: [{ name: 'a' }],
    });
    expect(experiment.status).toBe('failed');
    expect(experiment.runs).toEqual([]);
    expect(experiment.error).toBe(
      'permission denied to create extension "pg_buffercache": the lab evicts its table with pg_buffercache, which is not a trusted extension; a superuser must run CREATE EXTENSION pg_buffercache in this database first',
    );
  });

  it('rejects hostile input over REST with a clear message and creates nothing', async () => {
    const { app } = await buildApp({ monitors: new Map(), lab, webRoot: '/nonexistent' });
    try {
      const before = await objectCount();
      const hostile: unknown[] = [
        { tableMb: 64, cacheState: 'cold', variants: [{ name: "a'; DROP TABLE x; --" }] },
        { tableMb: 10 ** 9, cacheState: 'cold', variants: [{ name: 'a' }] },
        { tableMb: 64, cacheState: 'cold; DROP', variants: [{ name: 'a' }] },
        { tableMb: 64, cacheState: 'cold', variants: [{ name: 'a', session: { work_mem: '1GB' } }] },
        {
          tableMb: 64,
          cacheState: 'cold',
          variants: [{ name: 'a', session: { io_combine_limit: '16; DROP TABLE x' } }],
        },
        { tableMb: 64, cacheState: 'cold', variants: [] },
        { tableMb: 64, cacheState: 'cold', variants: [{ name: 'a' }], baseline: 3 },
      ];
      for (const body of hostile) {
        const response = await app.inject({ method: 'POST', url: '/api/lab/experiments', payload: body as object });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(JSON.parse(response.body).error).toEqual(expect.any(String));
      }
      const malformed = await app.inject({
        method: 'POST',
        url: '/api/lab/experiments',
        headers: { 'content-type': 'application/json' },
        payload: '{"tableMb": 64, "cacheState": ',
      });
      expect(malformed.statusCode).toBe(400);
      expect(JSON.parse(malformed.body).error).toEqual(expect.any(String));
      expect(await objectCount()).toBe(before);
      const list = await app.inject({ method: 'GET', url: '/api/lab/experiments' });
      expect(list.statusCode).toBe(200);
      const first = (JSON.parse(list.body) as { id: string }[])[0];
      const md = await app.inject({ method: 'GET', url: `/api/lab/experiments/${first?.id ?? ''}/export?format=md` });
      expect(md.body).toMatch(/\| variant \| runs \| median ms/);
      const csv = await app.inject({ method: 'GET', url: `/api/lab/experiments/${first?.id ?? ''}/export?format=csv` });
      expect(csv.body.split('\n')[0]).toMatch(/^variant,round,/);
      expect((await app.inject({ method: 'GET', url: '/api/lab/experiments/..%2Fetc' })).statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });

  it('says over REST that the lab is off on a user server without --allow-lab, and how to allow it', async () => {
    const external = new LabService({
      target: { ...target, id: 'server', kind: 'external', name: 'app@db1:5432/prod' },
      embedded: null,
      resultsDir: RESULTS,
      allowExternal: false,
    });
    const { app } = await buildApp({ monitors: new Map(), lab: external, webRoot: '/nonexistent' });
    try {
      const info = labInfoSchema.parse((await app.inject({ method: 'GET', url: '/api/lab' })).json());
      expect(info).toEqual({
        embedded: false,
        unavailable: expect.stringMatching(/off for app@db1:5432\/prod.*Start aioscope with --allow-lab/),
        active: null,
        // Which server the lab is about: other servers' dashboards name it.
        target: { id: 'server', name: 'app@db1:5432/prod' },
      });
    } finally {
      await app.close();
    }
    expect(labInfoSchema.parse(lab.info())).toEqual({
      embedded: true,
      active: null,
      target: { id: target.id, name: target.name },
    });
  });

  it('answers cancel and bad input with clear JSON errors, and skips a corrupt file in the list', async () => {
    const { app } = await buildApp({ monitors: new Map(), lab, webRoot: '/nonexistent' });
    try {
      const cancel = (id: string): Promise<{ statusCode: number; json: () => unknown }> =>
        app.inject({ method: 'POST', url: `/api/lab/experiments/${id}/cancel` });
      expect(await cancel('zzzzzzzzzzzz')).toMatchObject({ statusCode: 404 });
      expect((await cancel('zzzzzzzzzzzz')).json()).toEqual({ error: 'no experiment zzzzzzzzzzzz' });
      expect((await cancel('..%2Fetc')).statusCode).toBe(400);
      const done = labExperimentListSchema
        .parse((await app.inject({ method: 'GET', url: '/api/lab/experiments' })).json())
        .find((item) => item.status === 'done');
      expect(done).toBeDefined();
      const notRunning = await cancel(done?.id ?? '');
      expect(notRunning.statusCode).toBe(409);
      expect(notRunning.json()).toEqual({ error: `experiment ${done?.id ?? ''} is done, not running` });

      const typo = await app.inject({
        method: 'POST',
        url: '/api/lab/experiments',
        payload: {
          tableMb: 64,
          cacheState: 'cold',
          variants: [{ name: 'eic=abc', session: { effective_io_concurrency: 'abc' } }],
        },
      });
      expect(typo.statusCode).toBe(400);
      expect(typo.json()).toEqual({ error: 'variant "eic=abc", effective_io_concurrency: must be a number' });

      await mkdir(RESULTS, { recursive: true });
      await writeFile(path.join(RESULTS, 'cccccccccccc.json'), '{"id": "cccccccccccc", "runs": [');
      const list = await app.inject({ method: 'GET', url: '/api/lab/experiments' });
      expect(list.statusCode).toBe(200);
      const ids = labExperimentListSchema.parse(list.json()).map((item) => item.id);
      expect(ids).not.toContain('cccccccccccc');
      expect(ids.length).toBeGreaterThan(0);
      expect((await app.inject({ method: 'GET', url: '/api/lab/experiments/cccccccccccc' })).statusCode).toBe(404);

      // A file left "running" by a process that was killed is not waited for.
      const leftOver = { ...(await lab.get(done?.id ?? '')), id: 'rrrrrrrrrrrr', status: 'running', finishedAt: null };
      await writeFile(path.join(RESULTS, 'rrrrrrrrrrrr.json'), JSON.stringify(leftOver));
      const shown = (await app.inject({ method: 'GET', url: '/api/lab/experiments/rrrrrrrrrrrr' })).json();
      expect(shown).toMatchObject({ status: 'failed', error: expect.stringMatching(/^not running in this aioscope/) });
      expect((await cancel('rrrrrrrrrrrr')).statusCode).toBe(409);
    } finally {
      await app.close();
    }
  });
});
