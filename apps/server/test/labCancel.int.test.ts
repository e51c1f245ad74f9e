import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { labTableName } from '@aioscope/core';
import { labExperimentRecordSchema, labInfoSchema, type LabExperimentInput } from '@aioscope/spec';
import { buildApp } from '../src/app/app.ts';
import { LabService } from '../src/lab/labService.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../src/targets/target.ts';
import { waitUntil, withTimeout } from './support/polling.ts';
import { connect, embeddedTarget, startTestPostgres, TEST_DATA_ROOT } from './support/testPostgres.ts';

const RESULTS = path.join(TEST_DATA_ROOT, 'lab-cancel-results');
/** Generous bounds for waiting on a state; the cancel itself is measured and reported, not asserted. */
const STATE_TIMEOUT_MS = 10_000;
const BUILD_TIMEOUT_MS = 120_000;

interface ActiveStatement {
  pid: number;
  query: string;
  wait_event_type: string | null;
}

describe('cancelling a scan-lab experiment on a real embedded PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let observer: pg.Client;
  let target: TargetDefinition;

  beforeAll(async () => {
    await rm(RESULTS, { recursive: true, force: true });
    server = await startTestPostgres('lab-cancel');
    target = embeddedTarget(server);
  });

  afterAll(async () => {
    await server?.stop();
  });

  // A connection per test: an io_method variant restarts the server under any open one.
  beforeEach(async () => {
    observer = await connect(server);
  });

  afterEach(async () => {
    await observer?.end().catch(() => undefined);
  });

  /** A lab per test: each has its own start rate limit. */
  function newLab(): LabService {
    return new LabService({ target, embedded: server, resultsDir: RESULTS, allowExternal: false });
  }

  /** Statements the lab's sessions run now, as pg_stat_activity shows them. */
  /**
   * A cancelled statement's error reaches the client before its backend reports itself idle (it
   * aborts the transaction first): a moment's wait, where a scan that kept running stays active.
   */
  async function noLabStatementsLeft(): Promise<void> {
    let active: ActiveStatement[] = [];
    await waitUntil(
      async () => (active = await activeLabStatements()).length === 0,
      2_000,
      'no lab statement active',
    ).catch(() => expect(active, 'lab statements still active after the cancel').toEqual([]));
  }

  async function activeLabStatements(): Promise<ActiveStatement[]> {
    return (
      await observer.query<ActiveStatement>(
        `SELECT pid, query, wait_event_type FROM pg_stat_activity
          WHERE application_name = 'aioscope' AND state = 'active' AND query LIKE '%aioscope_lab.%'
            AND pid <> pg_backend_pid()`,
      )
    ).rows;
  }

  async function backendExists(pid: number): Promise<boolean> {
    return (
      (await observer.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1`, [pid]))
        .rows[0]?.n === 1
    );
  }

  function start(lab: LabService, input: LabExperimentInput): string {
    const started = lab.start(input);
    if (!started.ok) throw new Error(started.error);
    return started.id;
  }

  it('cancels a cold scan over REST: the EXPLAIN is cancelled on the server and the experiment is saved as cancelled', async () => {
    const lab = newLab();
    const { app } = await buildApp({ monitors: new Map(), lab, webRoot: '/nonexistent' });
    try {
      // 8 kB reads without look-ahead over a cold table, twenty times: still running when cancelled.
      const response = await app.inject({
        method: 'POST',
        url: '/api/lab/experiments',
        payload: {
          tableMb: 256,
          cacheState: 'cold',
          rounds: 20,
          variants: [{ name: 'icl=1,eic=0', session: { io_combine_limit: 1, effective_io_concurrency: 0 } }],
        },
      });
      expect(response.statusCode, response.body).toBe(202);
      const { id } = JSON.parse(response.body) as { id: string };

      let scan: ActiveStatement | undefined;
      await waitUntil(
        async () => {
          scan = (await activeLabStatements()).find((statement) => statement.query.includes('EXPLAIN'));
          return scan !== undefined;
        },
        BUILD_TIMEOUT_MS,
        'the lab EXPLAIN to run on the server',
        5,
      );
      const scanPid = scan?.pid ?? -1;

      const requested = performance.now();
      const cancel = await app.inject({ method: 'POST', url: `/api/lab/experiments/${id}/cancel` });
      const cancelMs = performance.now() - requested;
      expect(cancel.statusCode, cancel.body).toBe(200);
      const cancelled = labExperimentRecordSchema.parse(JSON.parse(cancel.body));
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.cancelReason).toMatch(/cancelled on request/);
      expect(cancelled.error).toBeNull();
      expect(cancelled.finishedAt).not.toBeNull();
      expect(cancelled.runs.length).toBeLessThan(cancelled.plannedRuns);

      // Nothing of the lab runs on the server any more, and the run's backend goes away.
      await noLabStatementsLeft();
      await waitUntil(async () => !(await backendExists(scanPid)), STATE_TIMEOUT_MS, 'the run backend to exit');
      const goneMs = performance.now() - requested;
      console.log(`lab cancel: answered in ${cancelMs.toFixed(0)} ms, run backend gone after ${goneMs.toFixed(0)} ms`);

      const saved = labExperimentRecordSchema.parse(
        JSON.parse(await readFile(path.join(RESULTS, `${id}.json`), 'utf8')),
      );
      expect(saved).toMatchObject({ status: 'cancelled', cancelReason: cancelled.cancelReason });
      const again = await app.inject({ method: 'POST', url: `/api/lab/experiments/${id}/cancel` });
      expect(again.statusCode).toBe(409);
      expect(JSON.parse(again.body)).toEqual({ error: `experiment ${id} is cancelled, not running` });
      await lab.settled();
      expect(lab.info().active).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('cancels a statement that would never end by itself (the scan waits for a lock)', async () => {
    const lab = newLab();
    const variants = [
      { name: 'eic=1', session: { effective_io_concurrency: 1 } },
      { name: 'eic=16', session: { effective_io_concurrency: 16 } },
    ];
    const id = start(lab, { tableMb: 16, cacheState: 'warm', rounds: 20, variants });
    const locker = await connect(server);
    try {
      await waitUntil(async () => ((await lab.get(id))?.runs.length ?? 0) >= 1, BUILD_TIMEOUT_MS, 'a first run');
      // Between runs nothing else of the lab touches the table (warm: no eviction), so the next EXPLAIN waits here.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${labTableName(16)} IN ACCESS EXCLUSIVE MODE`);
      let blocked: ActiveStatement | undefined;
      await waitUntil(
        async () => {
          blocked = (await activeLabStatements()).find((statement) => statement.wait_event_type === 'Lock');
          return blocked !== undefined;
        },
        STATE_TIMEOUT_MS,
        'the lab EXPLAIN to wait for the lock',
      );
      expect(blocked?.query).toMatch(/^\/\* aioscope \*\/ EXPLAIN \(ANALYZE/);

      const result = await withTimeout(lab.cancelExperiment(id, 'test: blocked scan'), STATE_TIMEOUT_MS, 'cancel');
      expect(result.ok && result.experiment.status).toBe('cancelled');
      expect(result.ok && result.experiment.cancelReason).toBe('test: blocked scan');
      await noLabStatementsLeft();
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    await lab.settled();
  });

  it("puts the embedded server's own settings back after a cancel during an io_method variant", async () => {
    const lab = newLab();
    const { app } = await buildApp({ monitors: new Map(), lab, webRoot: '/nonexistent' });
    try {
      const base = server.currentSettings.io_method;
      expect(base).toBe('worker');
      const id = start(lab, {
        tableMb: 16,
        cacheState: 'warm',
        rounds: 20,
        variants: [
          { name: 'sync', server: { io_method: 'sync' } },
          { name: 'worker', server: { io_method: 'worker' } },
        ],
      });
      // The banner's data: while the sync variant runs, GET /api/lab says what the server runs with.
      await waitUntil(
        async () => {
          const info = labInfoSchema.parse((await app.inject({ method: 'GET', url: '/api/lab' })).json());
          return info.active?.id === id && info.active.serverSettings.io_method === 'sync';
        },
        BUILD_TIMEOUT_MS,
        'the sync variant to run',
      );
      const cancel = await app.inject({ method: 'POST', url: `/api/lab/experiments/${id}/cancel` });
      expect(cancel.statusCode, cancel.body).toBe(200);
      expect(labExperimentRecordSchema.parse(cancel.json()).status).toBe('cancelled');
      await withTimeout(lab.settled(), 30_000, 'settings restored');
      expect(server.currentSettings.io_method).toBe(base);
      const info = labInfoSchema.parse((await app.inject({ method: 'GET', url: '/api/lab' })).json());
      expect(info.active).toBeNull();
      const client = await connect(server);
      try {
        expect((await client.query<{ m: string }>(`SELECT current_setting('io_method') AS m`)).rows[0]?.m).toBe(base);
      } finally {
        await client.end();
      }
    } finally {
      await app.close();
    }
  });

  it("leaves nothing it created on a user's server, whether the experiment ends or is cancelled", async () => {
    const userServer = { ...target, id: 'server', kind: 'external' as const, name: 'app@db1:5432/prod' };
    const tableExists = async (mb: number): Promise<boolean> =>
      (await observer.query<{ found: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS found`, [labTableName(mb)]))
        .rows[0]?.found === true;
    for (const cancel of [false, true]) {
      const lab = new LabService({ target: userServer, embedded: null, resultsDir: RESULTS, allowExternal: true });
      const id = start(lab, {
        tableMb: 17,
        cacheState: 'warm',
        rounds: cancel ? 20 : 1,
        confirmTarget: 'app@db1:5432/prod',
        variants: [{ name: 'eic=1', session: { effective_io_concurrency: 1 } }],
      });
      if (cancel) {
        await waitUntil(tableExists.bind(null, 17), BUILD_TIMEOUT_MS, 'the lab table on the user server');
        const result = await withTimeout(lab.cancelExperiment(id, 'test'), STATE_TIMEOUT_MS, 'cancel');
        expect(result.ok && result.experiment.status).toBe('cancelled');
      }
      await lab.settled();
      expect((await lab.get(id))?.status).toBe(cancel ? 'cancelled' : 'done');
      expect(await tableExists(17)).toBe(false);
    }
  });
});
