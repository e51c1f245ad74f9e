import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { DEMO_TABLE } from '@aioscope/core';
import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import { buildApp } from '../src/app/app.ts';
import { REPO_ROOT } from '../src/config/config.ts';
import { ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../src/demo/demoTable.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import { promtool, startPrometheus, type RunningPrometheus } from './support/prometheus.ts';
import { connect, embeddedTarget, startTestPostgres } from './support/testPostgres.ts';

const TOKEN = 'metrics-int-token-0123456789';
const TABLE_BYTES = 128 * 1024 * 1024;
/** An idle backend may hold its pg_stat_io counters up to its 10 s idle flush timeout. */
const SETTLE_MS = 30_000;
/** Cold scans at most while waiting for a sample to catch an AIO wait. */
const MAX_SCANS = 10;
const IDLE_WORKER_WAIT = 'IoWorkerMain';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `read` returns a value `done` accepts, or the deadline; returns the last value. */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = SETTLE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(500);
    value = await read();
  }
  return value;
}

describe('a real Prometheus scraping aioscope watching a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let setup: pg.Client;
  let table: DemoTableInfo;
  let monitor: TargetMonitor;
  let app: FastifyInstance;
  let url: string;
  let prometheus: RunningPrometheus;
  const frames: LiveFrame[] = [];
  const startedAt = Date.now();
  const deltas: IoStatDelta[] = [];
  /** Whether a frame has shown a process in an AIO wait other than an idle io worker's. */
  const sawAioWait = (): boolean =>
    frames.some((frame) =>
      Object.entries(frame.waits).some(([key, count]) => count > 0 && !key.endsWith(`:${IDLE_WORKER_WAIT}`)),
    );

  beforeAll(async () => {
    server = await startTestPostgres('metrics');
    setup = await connect(server);
    table = await ensureDemoTable(setup, TABLE_BYTES, (relative) => server.resolveDataPath(relative));
    monitor = new TargetMonitor(embeddedTarget(server), { sampleRateHz: 20, demoWorkload: false });
    // The app subscribes first, then the test: both see every event from the first tick on.
    ({ app } = await buildApp({ monitors: new Map([[monitor.id, monitor]]), webRoot: '/nonexistent', token: TOKEN }));
    monitor.on('frame', (frame) => frames.push(frame));
    monitor.on('ioDelta', (delta) => deltas.push(delta));
    monitor.start();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    url = `http://127.0.0.1:${port}`;
    prometheus = await startPrometheus({ hostPort: `127.0.0.1:${port}`, token: TOKEN });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await app?.close();
    await monitor?.stop();
    await setup?.end();
    await server?.stop();
  });

  const single = async (expr: string): Promise<number | null> => {
    const result = await prometheus.query(expr);
    return result[0] === undefined ? null : Number(result[0].value[1]);
  };

  it('scrapes with the bearer token, and the exposition passes promtool check metrics', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const up = await pollUntil(
      () => single('up{job="aioscope"}'),
      (value) => value === 1,
    );
    expect(up, 'Prometheus scraped aioscope with its token').toBe(1);
    // A scraper of its own, so this fetch does not take the interval Prometheus's next scrape reports.
    const response = await fetch(`${url}/metrics?scraper=promtool`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const exposition = await response.text();
    const check = promtool(['check', 'metrics'], exposition);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('reads back what the monitor emitted during a cold scan', async () => {
    const live = await pollUntil(
      () => single('aioscope_connection_state{target="embedded",state="live"}'),
      (value) => value === 1,
    );
    expect(live).toBe(1);
    const scanner = await connect(server);
    try {
      await scanner.query('SET max_parallel_workers_per_gather = 0');
      // Two cold scans at least; more while no sample has caught a process in an AIO wait, since a
      // scan of ~100 ms spans two or three samples at 20 Hz and the dashboard's waits panel is
      // asked about below.
      for (let scan = 0; scan < 2 || (!sawAioWait() && scan < MAX_SCANS); scan++) {
        await makeDemoTableCold(setup, table);
        await scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`);
      }
    } finally {
      await scanner.end();
    }

    // pg_stat_io: the counter Prometheus holds is the sum of the deltas the test saw, resets skipped.
    const testReads = (): number =>
      deltas
        .filter((delta) => !delta.reset)
        .flatMap((delta) => Object.values(delta.byBackendType))
        .reduce((sum, group) => sum + group.reads, 0);
    const promReads = await pollUntil(
      () => single('sum(aioscope_pg_stat_io_reads_total{target="embedded"})'),
      (value) => value !== null && value === testReads() && value >= (2 * table.relationBytes) / 131_072,
    );
    expect(promReads).toBe(testReads());
    expect(promReads ?? 0, 'both cold scans counted').toBeGreaterThanOrEqual((2 * table.relationBytes) / 131_072);

    // Reads in flight: every frame fell into one scrape interval, whose max Prometheus kept.
    const scanMax = Math.max(...frames.map((frame) => frame.inflight?.total.count ?? 0));
    expect(scanMax, 'reads in flight caught during the scans').toBeGreaterThan(0);
    const promMax = await pollUntil(
      () => single('max_over_time(aioscope_reads_in_flight_max{target="embedded"}[10m])'),
      (value) => value === scanMax,
    );
    expect(promMax).toBe(scanMax);

    expect(await single('aioscope_sample_rate_hertz{target="embedded"}')).toBe(20);
    expect(await single('aioscope_io_worker_samples_total{target="embedded"}')).toBeGreaterThan(0);
    const info = await prometheus.query('aioscope_target_info{target="embedded"}');
    expect(info[0]?.metric).toMatchObject({ io_method: 'worker', target_name: 'embedded PostgreSQL 18' });
    const ioMethodRule = await pollUntil(
      () =>
        single(
          'aioscope_audit_rule_warning{target="embedded",rule="io_method"} and on (target, rule) aioscope_audit_rule_info{level="pass"}',
        ),
      (value) => value !== null,
    );
    expect(ioMethodRule, 'the audit arrived and io_method = worker passes').toBe(0);
    const warning = await prometheus.query('aioscope_audit_rule_warning{target="embedded",rule="io_method"}');
    expect(Object.keys(warning[0]?.metric ?? {}).sort(), 'the state is the value: no level or value label').toEqual([
      '__name__',
      'instance',
      'job',
      'rule',
      'target',
      'target_name',
      'title',
    ]);
  });

  it('keeps pg_stat_io rows apart by backend_type, object and context, adding up to the total', async () => {
    const rows = await prometheus.query('aioscope_pg_stat_io_reads_total{target="embedded"}');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(Object.keys(row.metric)).toEqual(expect.arrayContaining(['backend_type', 'object', 'context']));
    expect(rows.map((row) => row.metric.object)).not.toContain('wal');
    const total = rows.reduce((sum, row) => sum + Number(row.value[1]), 0);
    expect(total).toBe(await single('sum(aioscope_pg_stat_io_reads_total{target="embedded"})'));
    const scans = await single(
      'sum(aioscope_pg_stat_io_reads_total{target="embedded",backend_type="client backend",object="relation",context="bulkread"})',
    );
    expect(scans ?? 0, 'the cold scans read through the bulkread ring').toBeGreaterThanOrEqual(
      (2 * table.relationBytes) / 131_072,
    );
  });

  it('answers every query of the Grafana dashboard, as Grafana would send it', async () => {
    const dashboard = JSON.parse(
      await readFile(path.join(REPO_ROOT, 'deploy/grafana/aioscope-dashboard.json'), 'utf8'),
    ) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    // Grafana's variables as it fills them: this target, and a rate window of several scrapes.
    const asGrafanaSends = (expr: string): string =>
      expr.replaceAll('$target', 'embedded').replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s');
    // A panel asks for a range (query_range) up to now, from when this test file started, at a 1 s
    // step (the scrape interval), as a dashboard's time picker would.
    const rangeQuery = async (expr: string): Promise<number> => {
      const end = Date.now() / 1000;
      const params = new URLSearchParams({ query: expr, start: String(startedAt / 1000), end: String(end), step: '1' });
      const body = (await (await fetch(`${prometheus.url}/api/v1/query_range?${params}`)).json()) as {
        status: string;
        error?: string;
        data?: { result: unknown[] };
      };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? 'failed'}`);
      return body.data?.result.length ?? 0;
    };
    const emptyPanels = async (): Promise<string[]> => {
      const empty: string[] = [];
      for (const panel of dashboard.panels) {
        let series = 0;
        for (const target of panel.targets) series += await rangeQuery(asGrafanaSends(target.expr));
        if (series === 0) empty.push(panel.title);
      }
      return empty;
    };
    // rate() needs two scrapes of a series inside its window: on a fast run the cold scans can end
    // a scrape or two after Prometheus started, so the panels are asked again until then.
    const empty = await pollUntil(emptyPanels, (panels) => panels.length === 0);
    expect(sawAioWait(), 'a sample caught a process in an AIO wait, so the waits panel has something').toBe(true);
    expect(empty, 'panels with no data after the cold scans').toEqual([]);
  });
});
