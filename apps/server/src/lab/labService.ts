import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { QUERY_TAG, labNotes, parseExplainJson, planRuns, summarizeLab, type PlannedRun } from '@aioscope/core';
import {
  labExperimentSchema,
  type LabExperiment,
  type LabExperimentDefinition,
  type LabExperimentListItem,
  type LabRun,
} from '@aioscope/spec';
import { describeDemoTable, ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../demo/demoTable.ts';
import { osCacheResidency } from '../demo/osCache.ts';
import type { EmbeddedPostgresServer } from '../plugins/embeddedPostgres.ts';
import { describeDatabaseError } from '../sampler/sessions.ts';
import type { TargetDefinition } from '../targets/target.ts';

/** The lab's own schema: it creates and drops nothing outside it. */
export const LAB_SCHEMA = 'aioscope_lab';
/** How long to wait for a run's per-backend counters to be flushed after the forced flush. */
const FLUSH_WAIT_MS = 3_000;
/** Starts allowed per minute (on top of one experiment at a time). */
const MAX_STARTS_PER_MINUTE = 6;
const EXPERIMENT_ID = /^[a-z0-9]{12}$/;

export type StartResult = { ok: true; id: string } | { ok: false; status: 400 | 403 | 409 | 429; error: string };

export interface LabServiceOptions {
  target: TargetDefinition;
  embedded: EmbeddedPostgresServer | null;
  /** Folder where experiments are saved as JSON. */
  resultsDir: string;
  /** A server other than the embedded one may run the lab only when the user said so (--allow-lab). */
  allowExternal: boolean;
  /** Quiet the demo workload while an experiment runs. */
  pauseDemo?: () => Promise<void>;
  resumeDemo?: () => void;
  log?: (message: string) => void;
}

function labTableName(tableMb: number): string {
  // Built from a validated integer only: no user text reaches SQL.
  return `${LAB_SCHEMA}.scan_${Math.trunc(tableMb)}mb`;
}

/**
 * The cold-scan drill: interleaved rounds of EXPLAIN ANALYZE over a lab table, per variant of
 * session settings (or, on the embedded server, io_method / io_workers applied by restarting it),
 * with the cache state prepared before each run and the run's own pg_stat_io counters read after.
 */
export class LabService {
  private current: LabExperiment | null = null;
  private running: Promise<void> | null = null;
  private startTimes: number[] = [];
  private cancelled = false;

  constructor(private readonly options: LabServiceOptions) {}

  get isEmbedded(): boolean {
    return this.options.embedded !== null && this.options.target.kind === 'embedded';
  }

  /** Validates and starts an experiment; the result is followed with get(id). */
  start(input: unknown): StartResult {
    const parsed = labExperimentSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        ok: false,
        status: 400,
        error: `${issue?.path.join('.') || 'experiment'}: ${issue?.message ?? 'invalid'}`,
      };
    }
    const definition = parsed.data;
    if (!this.isEmbedded) {
      if (!this.options.allowExternal) {
        return {
          ok: false,
          status: 403,
          error: `the scan lab is off for ${this.options.target.name}: it creates a table there. Start aioscope with --allow-lab to allow it.`,
        };
      }
      if (definition.confirmTarget !== this.options.target.name) {
        return {
          ok: false,
          status: 400,
          error: `confirm by sending confirmTarget = "${this.options.target.name}" (the server the lab will write to)`,
        };
      }
      if (definition.variants.some((variant) => Object.keys(variant.server).length > 0)) {
        return {
          ok: false,
          status: 400,
          error: 'io_method and io_workers variants restart the server: only the embedded server is ever restarted',
        };
      }
    }
    if (this.running !== null) return { ok: false, status: 409, error: 'an experiment is already running' };
    const now = Date.now();
    this.startTimes = this.startTimes.filter((t) => now - t < 60_000);
    if (this.startTimes.length >= MAX_STARTS_PER_MINUTE) {
      return { ok: false, status: 429, error: `at most ${MAX_STARTS_PER_MINUTE} experiments a minute` };
    }
    this.startTimes.push(now);

    const id = randomBytes(9)
      .toString('base64url')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '0')
      .slice(0, 12);
    const plan = planRuns(definition);
    this.current = {
      id,
      targetId: this.options.target.id,
      targetName: this.options.target.name,
      createdAt: now,
      finishedAt: null,
      status: 'running',
      error: null,
      definition,
      plannedRuns: plan.length,
      runs: [],
      summary: [],
      notes: labNotes(definition, this.isEmbedded),
    };
    const experiment = this.current;
    this.running = this.execute(experiment, plan)
      .catch((error: unknown) => {
        experiment.status = 'failed';
        experiment.error = describeDatabaseError(error);
      })
      .finally(async () => {
        experiment.finishedAt = Date.now();
        if (experiment.status === 'running') experiment.status = 'done';
        await this.save(experiment).catch(() => undefined);
        this.running = null;
      });
    return { ok: true, id };
  }

  /** Resolves when the running experiment (if any) has finished. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** Stops after the run in progress (shutdown): the experiment is saved as failed, with its runs so far. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    await this.running;
  }

  async get(id: string): Promise<LabExperiment | null> {
    if (!EXPERIMENT_ID.test(id)) return null;
    if (this.current?.id === id) return this.current;
    const file = path.join(this.options.resultsDir, `${id}.json`);
    if (!existsSync(file)) return null;
    return JSON.parse(await readFile(file, 'utf8')) as LabExperiment;
  }

  async list(): Promise<LabExperimentListItem[]> {
    const items: LabExperimentListItem[] = [];
    const seen = new Set<string>();
    const add = (experiment: LabExperiment): void => {
      if (seen.has(experiment.id)) return;
      seen.add(experiment.id);
      items.push({
        id: experiment.id,
        createdAt: experiment.createdAt,
        status: experiment.status,
        cacheState: experiment.definition.cacheState,
        variants: experiment.definition.variants.map((variant) => variant.name),
        rounds: experiment.definition.rounds,
      });
    };
    if (this.current !== null) add(this.current);
    if (existsSync(this.options.resultsDir)) {
      for (const name of await readdir(this.options.resultsDir)) {
        if (!name.endsWith('.json')) continue;
        const experiment = await this.get(name.slice(0, -5));
        if (experiment !== null) add(experiment);
      }
    }
    return items.sort((a, b) => b.createdAt - a.createdAt);
  }

  private async save(experiment: LabExperiment): Promise<void> {
    await mkdir(this.options.resultsDir, { recursive: true });
    const file = path.join(this.options.resultsDir, `${experiment.id}.json`);
    await writeFile(`${file}.tmp`, JSON.stringify(experiment, null, 1));
    await rename(`${file}.tmp`, file);
  }

  private connect(applicationName: string): Promise<pg.Client> {
    const client = new pg.Client({ ...this.options.target.clientConfig, application_name: applicationName });
    client.on('error', () => undefined);
    return client.connect().then(() => client);
  }

  private async execute(experiment: LabExperiment, plan: PlannedRun[]): Promise<void> {
    const { definition } = experiment;
    await this.options.pauseDemo?.();
    const embedded = this.isEmbedded ? this.options.embedded : null;
    const baseSettings = embedded === null ? {} : { ...embedded.currentSettings };
    let admin = await this.connect('aioscope lab');
    let createdTable = false;
    try {
      if (embedded !== null && definition.variants.some((variant) => variant.server.io_method === 'io_uring')) {
        await assertIoUringBuild(admin);
      }
      const tableName = labTableName(definition.tableMb);
      const existed =
        (await admin.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [tableName])).rows[0]?.found === true;
      const resolve = (relative: string): string => embedded?.resolveDataPath(relative) ?? relative;
      const table = await ensureDemoTable(admin, definition.tableMb * 1024 * 1024, resolve, tableName);
      createdTable = !existed;
      if (definition.cacheState !== 'cold' || embedded === null) await this.warmUp(admin, table);

      for (const planned of plan) {
        if (this.cancelled) throw new Error('cancelled: aioscope is shutting down');
        const wanted = { ...baseSettings, ...stringify(planned.variant.server) };
        if (
          embedded !== null &&
          Object.entries(wanted).some(([name, value]) => embedded.currentSettings[name] !== value)
        ) {
          await admin.end().catch(() => undefined);
          this.options.log?.(`lab: restarting the embedded server for ${planned.variant.name}`);
          await embedded.restart(wanted);
          admin = await this.connect('aioscope lab');
        }
        const run = await this.runOnce(admin, table, planned, definition);
        experiment.runs.push(run);
        experiment.summary = summarizeLab(definition, experiment.runs);
        await this.save(experiment);
      }
    } finally {
      if (
        embedded !== null &&
        Object.entries(baseSettings).some(([name, value]) => embedded.currentSettings[name] !== value)
      ) {
        await admin.end().catch(() => undefined);
        await embedded.restart(baseSettings).catch(() => undefined);
        admin = await this.connect('aioscope lab').catch(() => admin);
      }
      if (embedded === null && createdTable) {
        // On a user's server the lab leaves nothing behind that it created.
        await admin.query(`DROP TABLE IF EXISTS ${labTableName(definition.tableMb)}`).catch(() => undefined);
        await admin.query(`DROP SCHEMA IF EXISTS ${LAB_SCHEMA}`).catch(() => undefined);
      }
      await admin.end().catch(() => undefined);
      this.options.resumeDemo?.();
    }
  }

  /** Reads the table once so the OS page cache holds it (for warm and shared-buffers-cold runs). */
  private async warmUp(admin: pg.Client, table: DemoTableInfo): Promise<void> {
    await admin.query(`SET max_parallel_workers_per_gather = 0`);
    await admin.query(`SELECT count(*) FROM ${table.name}`);
  }

  private async runOnce(
    admin: pg.Client,
    table: DemoTableInfo,
    planned: PlannedRun,
    definition: LabExperimentDefinition,
  ): Promise<LabRun> {
    const session = await this.connect('aioscope lab run');
    try {
      await session.query('SET max_parallel_workers_per_gather = 0');
      await session.query('SET synchronize_seqscans = off');
      await session.query('SET track_io_timing = on').catch(() => undefined); // needs superuser or a grant
      for (const [name, value] of Object.entries(planned.variant.session)) {
        // Names come from the schema's fixed keys, values are validated integers.
        await session.query(`SET ${name} = ${Math.trunc(Number(value))}`);
      }
      const pid = (await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
      const versionNum = Number(
        (await session.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`)).rows[0]?.v,
      );
      const ioMethod =
        (await session.query<{ m: string | null }>(`SELECT current_setting('io_method', true) AS m`)).rows[0]?.m ??
        null;

      let osResidencyBefore: number | null = null;
      const files = this.isEmbedded
        ? (await describeDemoTable(admin, (r) => this.options.embedded?.resolveDataPath(r) ?? r, table.name)).files
        : [];
      if (definition.cacheState === 'cold') {
        if (this.isEmbedded) osResidencyBefore = await makeDemoTableCold(admin, table);
        else
          await admin.query(`SELECT pg_buffercache_evict_relation($1::regclass)`, [table.name]).catch(() => undefined);
      } else if (definition.cacheState === 'shared-buffers-cold') {
        await admin.query(`SELECT pg_buffercache_evict_relation($1::regclass)`, [table.name]).catch(() => undefined);
        if (files.length > 0) osResidencyBefore = await osCacheResidency(files);
      } else if (files.length > 0) {
        osResidencyBefore = await osCacheResidency(files);
      }

      const before = await backendReads(admin, pid);
      const explainOptions =
        versionNum >= 190000
          ? 'ANALYZE, BUFFERS, TIMING OFF, IO, FORMAT JSON'
          : 'ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON';
      const startedAt = Date.now();
      const explain = await session.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (${explainOptions}) SELECT count(*) FROM ${table.name}`,
      );
      const figures = parseExplainJson(explain.rows[0]?.['QUERY PLAN']);
      // The run's counters reach shared memory when its session goes idle; force that now.
      await session.query('SELECT pg_stat_force_next_flush()');
      let after = await backendReads(admin, pid);
      const deadline = Date.now() + FLUSH_WAIT_MS;
      while (
        after !== null &&
        before !== null &&
        after.reads === before.reads &&
        figures.sharedReadBlocks > 0 &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await backendReads(admin, pid);
      }
      const reads = after !== null && before !== null ? after.reads - before.reads : null;
      const readBytes = after !== null && before !== null ? after.readBytes - before.readBytes : null;
      return {
        variant: planned.variant.name,
        round: planned.round,
        startedAt,
        ioMethod,
        cacheState: definition.cacheState,
        osResidencyBefore,
        executionMs: figures.executionMs,
        sharedReadBlocks: figures.sharedReadBlocks,
        sharedHitBlocks: figures.sharedHitBlocks,
        ioReadTimeMs: figures.ioReadTimeMs,
        reads,
        readBytes,
        bytesPerRead: reads !== null && readBytes !== null && reads > 0 ? readBytes / reads : null,
      };
    } finally {
      await session.end().catch(() => undefined);
    }
  }
}

/**
 * io_method = io_uring needs a build with liburing; without it the server would refuse to start.
 * A configure build lists --with-liburing; an empty line (meson) cannot tell, so it is allowed.
 */
async function assertIoUringBuild(client: pg.Client): Promise<void> {
  const configure = (
    await client.query<{ setting: string }>(`${QUERY_TAG} SELECT setting FROM pg_config WHERE name = 'CONFIGURE'`)
  ).rows[0]?.setting;
  if (configure !== undefined && configure.trim() !== '' && !configure.includes('--with-liburing')) {
    throw new Error('this PostgreSQL build has no io_uring (built without liburing): compare sync and worker instead');
  }
}

function stringify(settings: Record<string, string | number | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
  );
}

/** A backend's relation reads so far (pg_stat_get_backend_io, PostgreSQL 18+); null before 18. */
async function backendReads(client: pg.Client, pid: number): Promise<{ reads: number; readBytes: number } | null> {
  try {
    const row = (
      await client.query<{ reads: number | null; read_bytes: number | null }>(
        `${QUERY_TAG} SELECT sum(reads)::float8 AS reads, sum(read_bytes)::float8 AS read_bytes
           FROM pg_stat_get_backend_io($1) WHERE object = 'relation'`,
        [pid],
      )
    ).rows[0];
    return { reads: Number(row?.reads ?? 0), readBytes: Number(row?.read_bytes ?? 0) };
  } catch {
    return null;
  }
}
