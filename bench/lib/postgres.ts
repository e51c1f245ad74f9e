import path from 'node:path';
import pg from 'pg';
import type { ClientConfig } from 'pg';
import { DEMO_TABLE } from '@aioscope/core';
import { ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../../apps/server/src/demo/demoTable.ts';
import { EmbeddedPostgresServer } from '../../apps/server/src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../../apps/server/src/targets/target.ts';
import { freePort } from '../../apps/server/test/support/testPostgres.ts';
import { BENCH_DATA_DIR, BENCH_TABLE_MB, log, sleep, withTimeout, type Cleanups } from './common.ts';

export const SCAN_SQL = `SELECT count(*) FROM ${DEMO_TABLE}`;

/** The benchmark cluster: `.aioscope/bench/pg18`, kept between runs so the table is filled once. */
export async function startBenchPostgres(cleanups: Cleanups): Promise<EmbeddedPostgresServer> {
  log('starting embedded PostgreSQL 18 (.aioscope/bench/pg18) ...');
  const server = await EmbeddedPostgresServer.start({
    rootDir: path.join(BENCH_DATA_DIR, 'pg18'),
    port: await freePort(),
  });
  cleanups.add('embedded PostgreSQL', () => server.stop());
  return server;
}

export async function connectClient(config: ClientConfig, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ ...config, application_name: applicationName, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Creates the 512 MB demo table when missing (the first run fills it), and describes it. */
export async function prepareTable(
  config: ClientConfig,
  resolveDataPath: (relative: string) => string,
): Promise<DemoTableInfo> {
  const client = await connectClient(config, 'aioscope bench setup');
  try {
    const started = performance.now();
    const table = await ensureDemoTable(client, BENCH_TABLE_MB * 1024 * 1024, resolveDataPath);
    log(
      `demo table ${table.name}: ${(table.relationBytes / 1024 ** 2).toFixed(0)} MB ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return table;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The bench cluster with its 512 MB table and a cold scanner: what the direct measurements start from. */
export async function openBenchCluster(
  cleanups: Cleanups,
): Promise<{ server: EmbeddedPostgresServer; table: DemoTableInfo; scanner: ColdScanner }> {
  const server = await startBenchPostgres(cleanups);
  const table = await prepareTable(server.connectionConfig, (relative) => server.resolveDataPath(relative));
  const scanner = await ColdScanner.open(server.connectionConfig, table, cleanups);
  return { server, table, scanner };
}

/**
 * The bench cluster with cold scans running in the background (BackgroundScans) until cleanup, and
 * the target a monitor of it is given: what the sampler, record and profile measurements share.
 */
export async function openScannedBenchCluster(
  cleanups: Cleanups,
): Promise<{ server: EmbeddedPostgresServer; definition: TargetDefinition; scans: BackgroundScans }> {
  const { server, scanner } = await openBenchCluster(cleanups);
  const scans = new BackgroundScans(scanner);
  scans.start();
  cleanups.add('background scans', () => scans.stop());
  const definition: TargetDefinition = {
    id: 'embedded',
    name: 'bench',
    kind: 'embedded',
    clientConfig: server.connectionConfig,
  };
  return { server, definition, scans };
}

/**
 * A control session (evicts the table) and a scanner session (one cold sequential scan, no
 * parallel workers), as the observer-effect measurement prescribes.
 */
export class ColdScanner {
  private constructor(
    private readonly control: pg.Client,
    private readonly scanner: pg.Client,
    readonly scannerPid: number,
    private readonly table: DemoTableInfo,
  ) {}

  static async open(config: ClientConfig, table: DemoTableInfo, cleanups: Cleanups): Promise<ColdScanner> {
    const control = await connectClient(config, 'aioscope bench control');
    const scanner = await connectClient(config, 'aioscope bench scan');
    await scanner.query('SET max_parallel_workers_per_gather = 0');
    const pid = Number((await scanner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    const opened = new ColdScanner(control, scanner, pid, table);
    cleanups.add('scan sessions', () => opened.close());
    return opened;
  }

  /** Evicts the table from shared buffers and the OS cache; returns the OS residency after (0..1). */
  makeCold(): Promise<number> {
    return withTimeout(makeDemoTableCold(this.control, this.table), 60_000, 'makeDemoTableCold');
  }

  /** One scan of the whole table; returns its wall time in ms as this process sees it. */
  async scan(): Promise<number> {
    const started = performance.now();
    await withTimeout(this.scanner.query(SCAN_SQL), 120_000, 'cold scan');
    return performance.now() - started;
  }

  /** Cancels a scan in progress (so a stopped load does not keep reading for seconds). */
  async cancel(): Promise<void> {
    await this.control.query('SELECT pg_cancel_backend($1)', [this.scannerPid]).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.cancel();
    await Promise.all([this.control.end().catch(() => undefined), this.scanner.end().catch(() => undefined)]);
  }
}

/**
 * Load for the sampler, latency, fan-out and browser measurements: cold scans in a loop, so frames
 * carry reads in flight and a live scan like a busy server's. One I/O-bound scanner, no CPU-bound
 * one (the demo's md5 scan would take one of the machine's two cores away from what is measured).
 */
export class BackgroundScans {
  private stopped = false;
  private loop: Promise<void> | null = null;
  scans = 0;
  scanMs: number[] = [];

  constructor(private readonly scanner: ColdScanner) {}

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.scanner.makeCold();
        if (this.stopped) return;
        this.scanMs.push(await this.scanner.scan());
        this.scans++;
      } catch (error) {
        if (this.stopped) return;
        log(`background scan: ${error instanceof Error ? error.message : String(error)}`);
        await sleep(1_000);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.scanner.cancel();
    await withTimeout(this.loop ?? Promise.resolve(), 30_000, 'background scans stop').catch(() => undefined);
  }
}

/** Pids of the backends aioscope opened (application_name 'aioscope'), with their current query. */
export async function aioscopeBackends(client: pg.Client): Promise<{ pid: number; query: string }[]> {
  const result = await client.query<{ pid: number; query: string | null }>(
    `SELECT pid, query FROM pg_stat_activity WHERE application_name = 'aioscope' ORDER BY pid`,
  );
  return result.rows.map((row) => ({ pid: Number(row.pid), query: row.query ?? '' }));
}
