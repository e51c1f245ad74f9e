import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { ClientConfig } from 'pg';
import {
  FAST_TICK_SQL,
  QUERY_TAG,
  ScanTracker,
  buildLiveFrame,
  parseFastTickRow,
  scansForFrame,
  type FastTickQueryRow,
  type FastTickSample,
  type RelationFile,
} from '@aioscope/core';
import { RACE_CAPTURE_HZ, RACE_MAX_CAPTURE_MS, type LiveFrame } from '@aioscope/spec';
import type { ObservedScan } from '../lab/labMeasurement.ts';
import { closeSession, describeDatabaseError, openSession } from '../postgres/sessions.ts';

const TICK_MS = 1000 / RACE_CAPTURE_HZ;
const MAX_FRAMES = (RACE_MAX_CAPTURE_MS / 1000) * RACE_CAPTURE_HZ;
/** A capture query that takes longer than a few ticks is not worth waiting for. */
const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** What the capture needs to know once: the io_method (worker backlog), the block size, the table's file. */
const CAPTURE_SETUP_SQL = `${QUERY_TAG} SELECT current_setting('io_method', true) AS io_method,
  current_setting('block_size')::int AS block_size,
  pg_relation_filenode($1::regclass)::int8 AS filenode,
  (SELECT oid FROM pg_database WHERE datname = current_database())::int8 AS dboid`;

export interface CapturedRun {
  frames: LiveFrame[];
  /** Server clock of the first and last sample, epoch ms. */
  startT: number;
  endT: number;
  error: string | null;
}

/** Keeps the run's own backend (and the io workers that serve it): the rest of the server is not the race. */
export function sampleOfPid(sample: FastTickSample, pid: number): FastTickSample {
  return {
    t: sample.t,
    aios: sample.aios?.filter((row) => row.pid === pid) ?? null,
    processes: sample.processes.filter((process) => process.pid === pid || process.backendType === 'io worker'),
  };
}

/**
 * One run of a race captured at RACE_CAPTURE_HZ on a session of its own: the target monitor's
 * pg_aios tick (FAST_TICK_SQL, buildLiveFrame, the scan tracker), but every frame carries the scan
 * map, and only the run's backend is kept. Started before the scan is sent, stopped after it
 * returned: the first and last samples bracket the scan on the server's clock.
 */
export class RunCapture {
  private readonly frames: LiveFrame[] = [];
  private readonly tracker = new ScanTracker();
  private previousIoKeys: Set<string> = new Set();
  private stopped = false;
  private error: string | null = null;
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly scan: ObservedScan,
    private readonly facts: { ioMethod: string | null; blockSize: number; filenode: number; dboid: number },
  ) {}

  static async start(config: ClientConfig, scan: ObservedScan): Promise<RunCapture> {
    const client = await openSession(config, {
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
    try {
      const row = (
        await client.query<{ io_method: string | null; block_size: number; filenode: string; dboid: string }>(
          CAPTURE_SETUP_SQL,
          [scan.table.name],
        )
      ).rows[0];
      const capture = new RunCapture(client, scan, {
        ioMethod: row?.io_method ?? null,
        blockSize: row?.block_size ?? 8192,
        filenode: Number(row?.filenode ?? -1),
        dboid: Number(row?.dboid ?? -1),
      });
      // The first sample is taken before the scan is sent: it is the lane's time zero.
      await capture.sampleOnce();
      capture.loop = capture.run();
      return capture;
    } catch (error) {
      await closeSession(client);
      throw error;
    }
  }

  /** Stops after one last sample (taken after the scan returned: the lane's end) and closes the session. */
  async stop(): Promise<CapturedRun> {
    this.stopped = true;
    await this.loop;
    if (this.error === null) await this.sampleOnce().catch((error: unknown) => this.fail(error));
    await closeSession(this.client);
    return {
      frames: this.frames,
      startT: this.frames[0]?.t ?? 0,
      endT: this.frames[this.frames.length - 1]?.t ?? 0,
      error: this.error,
    };
  }

  /** Chained timeouts that subtract the tick's own time: a slow sample delays the next, never stacks. */
  private async run(): Promise<void> {
    while (!this.stopped && this.error === null) {
      const began = performance.now();
      try {
        await this.sampleOnce();
      } catch (error) {
        this.fail(error);
        return;
      }
      if (this.frames.length >= MAX_FRAMES) {
        this.error = `captured the first ${RACE_MAX_CAPTURE_MS / 1000} s only (the run took longer)`;
        return;
      }
      const rest = TICK_MS - (performance.now() - began);
      if (rest > 0) await sleep(rest);
    }
  }

  private fail(error: unknown): void {
    this.error ??= `capture stopped: ${describeDatabaseError(error)}`;
  }

  private async sampleOnce(): Promise<void> {
    const started = performance.now();
    const result = await this.client.query<FastTickQueryRow>({ name: 'aioscope_race_tick', text: FAST_TICK_SQL });
    const sampleMs = performance.now() - started;
    const row = result.rows[0];
    if (row === undefined) return;
    const { pid } = this.scan;
    const sample = sampleOfPid(parseFastTickRow(row), pid);
    const { frame, ioKeys } = buildLiveFrame(sample, {
      previousIoKeys: this.previousIoKeys,
      sampleMs,
      skippedTicks: 0,
      ioMethod: this.facts.ioMethod,
    });
    this.previousIoKeys = ioKeys;
    const scans = this.tracker.update({
      t: sample.t,
      aios: sample.aios ?? [],
      activityByPid: new Map([[pid, 'SELECT']]),
      leaderByPid: new Map([[pid, null]]),
      queryStartByPid: new Map(sample.processes.map((process) => [process.pid, process.queryStart])),
      resolve: (file) => this.resolve(file),
      blockSize: this.facts.blockSize,
    });
    // The lane's scan is its run's scan of the raced table: a fresh session's reads of catalogs
    // or another fork (counted in the frame's reads all the same) are not, and inserted first they
    // would come first on the map, where the race reads the lane's progress.
    frame.scans = scansForFrame(scans.filter((scan) => scan.relation.name !== null));
    this.frames.push(frame);
  }

  /** The run reads one table: its file is known up front, so no resolver pool is needed. */
  private resolve(file: RelationFile): { name: string; blocks: number } | undefined {
    if (file.fork !== 'main' || file.relfilenode !== this.facts.filenode || file.databaseOid !== this.facts.dboid)
      return undefined;
    return { name: this.scan.table.name, blocks: this.scan.table.blocks };
  }
}
