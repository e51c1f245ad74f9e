import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import {
  FAST_TICK_SQL,
  FAST_TICK_WITH_DETAILS_SQL,
  FAST_TICK_WITHOUT_AIOS_SQL,
  FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL,
  PROCESS_DETAILS_SQL,
  ProcessDetailsCache,
  ScanTracker,
  activityOf,
  buildLiveFrame,
  buildProcessViews,
  degradedMessage,
  fastTickSql,
  isConnectionLevelError,
  isDue,
  isPrivilegeError,
  parseDetailsColumn,
  parseFastTickRow,
  scansForFrame,
  withDetails,
  type FastTickQueryRow,
  type FastTickSample,
  type MonitorOutcome,
  type ProcessDetails,
  type ProcessDetailsQueryRow,
  type ScanUpdate,
} from '@aioscope/core';
import { SCANS_PER_SECOND, type LiveFrame, type ProcessView } from '@aioscope/spec';
import type { RelationResolver } from '../targets/relationResolver.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { MonitoringSession } from './monitoringSession.ts';
import { describeDatabaseError } from '../postgres/sessions.ts';
import type { ServerInfoSource } from './serverInfoSource.ts';

/** The processes table is sent at most this often: query texts need not travel at 20-100 Hz. */
export const PROCESSES_INTERVAL_MS = 500;
const FAST_STATEMENT_TIMEOUT_MS = 1_000;

/** Each variant of the fast tick is its own prepared statement. */
const STATEMENT_NAMES = new Map([
  [FAST_TICK_SQL, 'aioscope_fast_tick'],
  [FAST_TICK_WITH_DETAILS_SQL, 'aioscope_fast_tick_details'],
  [FAST_TICK_WITHOUT_AIOS_SQL, 'aioscope_fast_tick_no_aios'],
  [FAST_TICK_WITHOUT_AIOS_WITH_DETAILS_SQL, 'aioscope_fast_tick_no_aios_details'],
]);

/**
 * Whether the next sample is likely to find the processes table due (on the server's clock), so
 * the tick asks for the processes' details in its own round trip instead of a second query after
 * it. The next sample's time is guessed as the last one plus the last spacing; half a spacing of
 * slack makes an early guess (details read one tick before they are due, then again) likelier than
 * a late one (a second round trip, as without the guess).
 */
export function processesDueNext(lastT: number, spacingMs: number, processesSentAt: number): boolean {
  if (!Number.isFinite(lastT) || !Number.isFinite(spacingMs)) return true;
  return isDue(lastT + spacingMs * 1.5, processesSentAt, PROCESSES_INTERVAL_MS);
}

/** A failed sample as the connection state sees it. */
function outcomeOf(error: unknown): MonitorOutcome {
  const reason = describeDatabaseError(error);
  return isPrivilegeError(error)
    ? { kind: 'privilegeLost', reason: `${reason}: re-reading privileges` }
    : { kind: 'failed', reason };
}

export interface ProcessesUpdate {
  /** Server clock of the sample the list comes from, epoch ms. */
  t: number;
  processes: ProcessView[];
}

export interface FastSamplerOutput {
  frame(frame: LiveFrame): void;
  processes(update: ProcessesUpdate): void;
  outcome(outcome: MonitorOutcome): void;
}

/**
 * The fast tick of one target (20-100 Hz): pg_aios and wait states in one round trip, process
 * details when they are stale, the scan map, and the processes table at 2 Hz. Owns its session.
 */
export class FastSampler {
  private readonly session: MonitoringSession;
  private readonly details = new ProcessDetailsCache();
  private readonly scanTracker = new ScanTracker();
  /**
   * Each details read's label (activityOf), worked out once: details change at most every
   * PROCESS_DETAILS_MIN_INTERVAL_MS, the labels are asked for on every tick.
   */
  private readonly activityOfDetails = new WeakMap<ProcessDetails, string>();
  private previousIoKeys: Set<string> = new Set();
  private processesSentAt = -Infinity;
  private scansSentAt = -Infinity;
  private lastSampleT = -Infinity;
  private sampleSpacingMs = Number.NaN;
  private skippedSinceFrame = 0;
  latestProcesses: ProcessView[] = [];

  constructor(
    definition: TargetDefinition,
    private readonly serverInfo: ServerInfoSource,
    private readonly resolver: RelationResolver,
    private readonly output: FastSamplerOutput,
  ) {
    this.session = new MonitoringSession(definition, FAST_STATEMENT_TIMEOUT_MS);
  }

  /** Ticks the ticker could not run (the previous one was still running); reported with the next frame. */
  skipped(count: number): void {
    this.skippedSinceFrame += count;
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  async tick(): Promise<void> {
    let client: pg.Client | null;
    try {
      client = await this.session.get();
    } catch (error) {
      // Not outcomeOf: a 42501 here is a role without CONNECT, which is a failure, not a degrade.
      this.output.outcome({ kind: 'failed', reason: describeDatabaseError(error) });
      return;
    }
    if (client === null) return;
    try {
      if (!this.serverInfo.known) await this.serverInfo.read(client);
      const refusal = this.serverInfo.refusal();
      if (refusal !== null) {
        this.output.outcome({ kind: 'refused', reason: refusal });
        return;
      }
      await this.sample(client);
    } catch (error) {
      const outcome = outcomeOf(error);
      if (outcome.kind === 'privilegeLost') {
        // A privilege was revoked while running: re-read capabilities and degrade, do not disconnect.
        this.serverInfo.invalidateCapabilities();
      } else if (isConnectionLevelError(error)) {
        this.serverInfo.forget();
        this.forgetServerState();
        await this.session.discard();
      }
      this.output.outcome(outcome);
    }
  }

  private async sample(client: pg.Client): Promise<void> {
    const detailsInTick = processesDueNext(this.lastSampleT, this.sampleSpacingMs, this.processesSentAt);
    const sql = fastTickSql(this.serverInfo.capabilities, detailsInTick);
    const started = performance.now();
    const result = await client.query<FastTickQueryRow>({
      name: STATEMENT_NAMES.get(sql),
      text: sql,
    });
    const sampleMs = performance.now() - started;
    const row = result.rows[0];
    if (row === undefined) return;
    const sample = parseFastTickRow(row);
    this.sampleSpacingMs = sample.t - this.lastSampleT;
    this.lastSampleT = sample.t;
    const processesDue = isDue(sample.t, this.processesSentAt, PROCESSES_INTERVAL_MS);
    if (row.details !== undefined) this.details.store(sample, parseDetailsColumn(row.details));
    else if (this.details.needsRead(sample, processesDue)) await this.readDetails(client, sample);
    this.details.noteSeen(sample);
    const { frame, ioKeys } = buildLiveFrame(sample, {
      previousIoKeys: this.previousIoKeys,
      sampleMs,
      skippedTicks: this.skippedSinceFrame,
      ioMethod: this.serverInfo.server?.ioMethod ?? null,
    });
    this.previousIoKeys = ioKeys;
    this.trackScans(sample, frame);
    // Built only when due (2 Hz), not on every 20-100 Hz tick: nothing else reads it in between.
    if (processesDue) {
      this.latestProcesses = buildProcessViews(
        withDetails(sample.processes, this.details.details),
        frame.byProcess,
        this.serverInfo.concurrencySettings(),
      );
      this.processesSentAt = sample.t;
      this.output.processes({ t: sample.t, processes: this.latestProcesses });
    }
    this.skippedSinceFrame = 0;
    this.output.frame(frame);
    this.output.outcome({
      kind: 'sampled',
      note: degradedMessage(this.serverInfo.server, this.serverInfo.capabilities),
    });
  }

  /** The tracker follows every sample; the map travels on at most SCANS_PER_SECOND frames. */
  private trackScans(sample: FastTickSample, frame: LiveFrame): void {
    if (sample.aios === null) return;
    // Only pids whose details were read: the scan tracker keeps its last label for the others.
    const activityByPid = new Map<number, string>();
    const leaderByPid = new Map<number, number | null>();
    for (const process of sample.processes) {
      const details = this.details.get(process.pid);
      if (details === undefined) continue;
      let activity = this.activityOfDetails.get(details);
      if (activity === undefined) {
        activity = activityOf(process.backendType, details.queryPreview);
        this.activityOfDetails.set(details, activity);
      }
      activityByPid.set(process.pid, activity);
      leaderByPid.set(process.pid, details.leaderPid);
    }
    const update: ScanUpdate = {
      t: sample.t,
      aios: sample.aios,
      activityByPid,
      leaderByPid,
      queryStartByPid: new Map(sample.processes.map((p) => [p.pid, p.queryStart])),
      resolve: (file) => this.resolver.lookup(file),
      blockSize: this.serverInfo.server?.blockSize ?? 8192,
    };
    this.scanTracker.advance(update);
    if (isDue(sample.t, this.scansSentAt, 1000 / SCANS_PER_SECOND)) {
      frame.scans = scansForFrame(this.scanTracker.views(update));
      this.scansSentAt = sample.t;
    }
  }

  /**
   * Reads the tick's pids' details. A failure that is not the connection's (a statement timeout
   * on a busy server) keeps the previous details: they only label, the frame must not be lost.
   */
  private async readDetails(client: pg.Client, sample: FastTickSample): Promise<void> {
    try {
      const result = await client.query<ProcessDetailsQueryRow>({
        name: 'aioscope_process_details',
        text: PROCESS_DETAILS_SQL,
        values: [sample.processes.map((process) => process.pid)],
      });
      this.details.store(sample, result.rows);
    } catch (error) {
      if (isConnectionLevelError(error)) throw error;
      this.details.readFailed(sample);
    }
  }

  /** The server that answers next may have another clock and other pids (restart, failover). */
  private forgetServerState(): void {
    this.previousIoKeys = new Set();
    this.details.clear();
    this.processesSentAt = -Infinity;
    this.scansSentAt = -Infinity;
    this.lastSampleT = -Infinity;
    this.sampleSpacingMs = Number.NaN;
  }
}
