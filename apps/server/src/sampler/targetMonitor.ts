import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import {
  FAST_TICK_SQL,
  fastTickSql,
  AUDIT_PG_CONFIG_SQL,
  AUDIT_SETTINGS_SQL,
  AUDIT_SETTING_NAMES,
  AUDIT_TABLESPACES_SQL,
  IO_SETTING_NAMES,
  QUERY_TAG,
  auditSettings,
  type AuditSettingRow,
  type AuditTablespaceRow,
  SERVER_INFO_SQL,
  SETTINGS_SQL,
  ScanTracker,
  activityOf,
  appendBounded,
  buildLiveFrame,
  buildProcessViews,
  diffIoCounters,
  parseCapabilities,
  parseFastTickRow,
  parseProcessDetails,
  parseServerInfo,
  parseStatIoRows,
  statIoSql,
  unsupportedVersionMessage,
  withDetails,
  PROCESS_DETAILS_SQL,
  type FastTickQueryRow,
  type FastTickSample,
  type ProcessDetails,
  type ProcessDetailsQueryRow,
  type IoCounters,
  type ServerInfoQueryRow,
  type SettingQueryRow,
  type StatIoQueryRow,
} from '@aioscope/core';
import { SCANS_PER_SECOND } from '@aioscope/spec';
import type {
  AuditReport,
  Capabilities,
  ConnectionState,
  IoStatDelta,
  LiveFrame,
  ProcessDetail,
  ProcessView,
  ServerInfo,
  TargetStatus,
  TargetSummary,
} from '@aioscope/spec';
import { RelationResolver } from '../targets/relationResolver.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { closeSession, describeDatabaseError, openSession } from './sessions.ts';
import { startTicker, type Ticker } from './ticker.ts';

/** Seconds of live frames kept for snapshots. */
export const FRAME_HISTORY_SECONDS = 120;
/** Hard cap on kept frames whatever the rate (120 s at 100 Hz). */
export const MAX_FRAMES = 12_000;
/** pg_stat_io deltas kept (one per second). */
export const MAX_IO_DELTAS = 600;
export const STAT_INTERVAL_MS = 1_000;
/** Settings and privileges are re-read this often, and at once after a permission error. */
export const SETTINGS_REFRESH_MS = 30_000;
/** Privileges are re-read this often while pg_aios is not readable. */
export const DEGRADED_REFRESH_MS = 5_000;
/** The processes table is sent at most this often: query texts need not travel at 20-100 Hz. */
export const PROCESSES_INTERVAL_MS = 500;
/**
 * Process details (names, query text) are read with the processes table, and sooner when a pid
 * appears or starts a new statement (so the scan map names what it runs), but at most this often.
 */
export const PROCESS_DETAILS_MIN_INTERVAL_MS = 100;
/** Details of a pid missing from the ticks are kept this long: a scan between two reads keeps its label. */
export const PROCESS_DETAILS_KEEP_MS = 5_000;
const FAST_STATEMENT_TIMEOUT_MS = 1_000;
const STAT_STATEMENT_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** Reconnection backoff: doubles from the first to the last value; kept short so the view resumes within ~1 s. */
const RECONNECT_BACKOFF_MS = { first: 100, max: 1_000 } as const;

export interface TargetMonitorOptions {
  sampleRateHz: number;
  demoWorkload: boolean;
}

/** Process details as read, with the statement they were read for and when the pid was last in a tick. */
type KnownProcess = ProcessDetails & { readAtQueryStart: number | null; seenAt: number };

type Listener<T> = (value: T) => void;

/** A monitoring connection that reconnects with backoff and remembers why it last failed. */
class MonitoringSession {
  client: pg.Client | null = null;
  private nextAttemptAt = 0;
  private backoffMs: number = RECONNECT_BACKOFF_MS.first;

  constructor(
    private readonly definition: TargetDefinition,
    private readonly statementTimeoutMs: number,
  ) {}

  /** The open client, or null when a reconnection is not due yet. Throws when connecting fails. */
  async get(): Promise<pg.Client | null> {
    if (this.client !== null) return this.client;
    if (performance.now() < this.nextAttemptAt) return null;
    try {
      this.client = await openSession(this.definition.clientConfig, {
        statementTimeoutMs: this.statementTimeoutMs,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      this.backoffMs = RECONNECT_BACKOFF_MS.first;
      return this.client;
    } catch (error) {
      this.scheduleRetry();
      throw error;
    }
  }

  /** Drops a broken connection; the next get() reconnects after the backoff. */
  async discard(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.scheduleRetry();
    await closeSession(client);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await closeSession(client);
  }

  private scheduleRetry(): void {
    this.nextAttemptAt = performance.now() + this.backoffMs;
    this.backoffMs = Math.min(RECONNECT_BACKOFF_MS.max, this.backoffMs * 2);
  }
}

function isConnectionLevelError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true; // network errors, client timeouts, ended connections
  // SQLSTATE classes 08 (connection), 57 (operator intervention: shutdown, cancel), 53 (resources).
  return /^(08|57P|53)/.test(code);
}

/**
 * Watches one target: a fast tick (pg_aios + wait states), a stat tick (pg_stat_io deltas) and a
 * settings refresh, each on its own session. Keeps bounded history and tells listeners of changes.
 */
export class TargetMonitor {
  readonly id: string;
  private readonly fastSession: MonitoringSession;
  private readonly statSession: MonitoringSession;
  private readonly frames: LiveFrame[] = [];
  private readonly ioDeltas: IoStatDelta[] = [];
  private readonly tickers: Ticker[] = [];
  private readonly frameListeners = new Set<Listener<LiveFrame>>();
  private readonly deltaListeners = new Set<Listener<IoStatDelta>>();
  private readonly statusListeners = new Set<Listener<TargetStatus>>();
  private readonly processListeners = new Set<Listener<{ t: number; processes: ProcessView[] }>>();
  private readonly scanTracker = new ScanTracker();
  private readonly resolver: RelationResolver;
  private latestProcesses: ProcessView[] = [];
  /** Details by pid, with the query_start they were read at and when the pid was last in a tick. */
  private detailsByPid = new Map<number, KnownProcess>();
  private detailsReadAt = -Infinity;
  private processesSentAt = -Infinity;
  private scansSentAt = -Infinity;
  private server: ServerInfo | null = null;
  private capabilities: Capabilities | null = null;
  private previousIoKeys: Set<string> = new Set();
  private previousCounters: IoCounters | null = null;
  private skippedSinceFrame = 0;
  private totalSkipped = 0;
  private settingsReadAt = -Infinity;
  private status: TargetStatus = {
    state: 'connecting',
    message: null,
    since: Date.now(),
    lastFrameAt: null,
    skippedTicks: 0,
  };

  constructor(
    private readonly definition: TargetDefinition,
    private readonly options: TargetMonitorOptions,
  ) {
    this.id = definition.id;
    this.fastSession = new MonitoringSession(definition, FAST_STATEMENT_TIMEOUT_MS);
    this.statSession = new MonitoringSession(definition, STAT_STATEMENT_TIMEOUT_MS);
    this.resolver = new RelationResolver(definition.clientConfig);
  }

  start(): void {
    this.tickers.push(
      startTicker({
        intervalMs: 1000 / this.options.sampleRateHz,
        run: () => this.fastTick(),
        onSkipped: (count) => {
          this.skippedSinceFrame += count;
          this.totalSkipped += count;
        },
      }),
      startTicker({ intervalMs: STAT_INTERVAL_MS, run: () => this.statTick() }),
    );
  }

  async stop(): Promise<void> {
    for (const ticker of this.tickers.splice(0)) ticker.stop();
    await Promise.all([this.fastSession.close(), this.statSession.close(), this.resolver.close()]);
  }

  summary(): TargetSummary {
    return {
      id: this.definition.id,
      name: this.definition.name,
      kind: this.definition.kind,
      status: this.currentStatus(),
      server: this.server,
      capabilities: this.capabilities,
      sampleRateHz: this.options.sampleRateHz,
      statRateHz: 1000 / STAT_INTERVAL_MS,
      demoWorkload: this.options.demoWorkload,
    };
  }

  currentStatus(): TargetStatus {
    return { ...this.status, skippedTicks: this.totalSkipped };
  }

  recentFrames(maxFrames: number): LiveFrame[] {
    return this.frames.slice(-maxFrames);
  }

  recentIoDeltas(): IoStatDelta[] {
    return [...this.ioDeltas];
  }

  onFrame(listener: Listener<LiveFrame>): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  onIoDelta(listener: Listener<IoStatDelta>): () => void {
    this.deltaListeners.add(listener);
    return () => this.deltaListeners.delete(listener);
  }

  onProcesses(listener: Listener<{ t: number; processes: ProcessView[] }>): () => void {
    this.processListeners.add(listener);
    return () => this.processListeners.delete(listener);
  }

  currentProcesses(): ProcessView[] {
    return this.latestProcesses;
  }

  /** The full query text and per-backend I/O counters of one process, read on demand. */
  async processDetail(pid: number): Promise<ProcessDetail | null> {
    const client = await this.statSession.get();
    if (client === null) throw new Error('not connected');
    const activity = await client.query<{ query: string | null; backend_type: string }>(
      `${QUERY_TAG} SELECT query, backend_type FROM pg_stat_activity WHERE pid = $1`,
      [pid],
    );
    const row = activity.rows[0];
    if (row === undefined) return null;
    let backendIo: ProcessDetail['backendIo'] = null;
    let backendIoUnavailable: string | null = null;
    if ((this.server?.versionNum ?? 0) < 180000) {
      backendIoUnavailable = 'pg_stat_get_backend_io() exists from PostgreSQL 18.';
    } else if (row.backend_type === 'io worker') {
      backendIoUnavailable = 'PostgreSQL keeps no per-backend I/O statistics for io workers.';
    } else {
      const io = await client.query<{
        object: string;
        context: string;
        reads: number | null;
        read_bytes: number | null;
        read_time: number | null;
      }>(
        `${QUERY_TAG} SELECT object, context, reads::float8 AS reads, read_bytes::float8 AS read_bytes, read_time::float8 AS read_time
           FROM pg_stat_get_backend_io($1) WHERE reads > 0 ORDER BY object, context`,
        [pid],
      );
      backendIo = io.rows.map((r) => ({
        object: r.object,
        context: r.context,
        reads: Number(r.reads ?? 0),
        readBytes: Number(r.read_bytes ?? 0),
        readTimeMs: Number(r.read_time ?? 0),
      }));
    }
    return { pid, query: row.query, backendType: row.backend_type, backendIo, backendIoUnavailable };
  }

  /** Reads settings, tablespaces and (superuser only) the build's configure line, then applies the audit rules. */
  async audit(): Promise<AuditReport> {
    const client = await this.statSession.get();
    if (client === null) throw new Error('not connected');
    const info = await client.query<{ t: number; version_num: number }>(
      `${QUERY_TAG} SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t, current_setting('server_version_num')::int AS version_num`,
    );
    const settings = await client.query<AuditSettingRow>(AUDIT_SETTINGS_SQL, [AUDIT_SETTING_NAMES]);
    const tablespaces = await client.query<AuditTablespaceRow>(AUDIT_TABLESPACES_SQL);
    let configure: string | null = null;
    try {
      configure = (await client.query<{ setting: string }>(AUDIT_PG_CONFIG_SQL)).rows[0]?.setting ?? null;
    } catch {
      // pg_config is readable by superusers only: configure stays null and the rule says it could not check.
    }
    const row = info.rows[0];
    return {
      targetId: this.id,
      checkedAt: Number(row?.t ?? Date.now()),
      findings: auditSettings({
        versionNum: Number(row?.version_num ?? 0),
        settings: settings.rows,
        tablespaces: tablespaces.rows,
        configure,
      }),
    };
  }

  onStatus(listener: Listener<TargetStatus>): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  private setState(state: ConnectionState, message: string | null): void {
    if (this.status.state === state && this.status.message === message) return;
    this.status = { ...this.status, state, message, since: Date.now() };
    const snapshot = this.currentStatus();
    for (const listener of this.statusListeners) listener(snapshot);
  }

  private failed(error: unknown): void {
    const message = describeDatabaseError(error);
    this.setState(this.status.state === 'connecting' ? 'connecting' : 'reconnecting', message);
  }

  private async fastTick(): Promise<void> {
    let client: pg.Client | null;
    try {
      client = await this.fastSession.get();
    } catch (error) {
      this.failed(error);
      return;
    }
    if (client === null) return;
    try {
      if (this.server === null || this.capabilities === null) await this.readServerInfo(client);
      const unsupported =
        this.server === null ? null : unsupportedVersionMessage(this.server.version, this.server.versionNum);
      if (unsupported !== null) {
        this.setState('error', unsupported);
        return;
      }
      const sql = fastTickSql(this.capabilities);
      const started = performance.now();
      const result = await client.query<FastTickQueryRow>({
        name: sql === FAST_TICK_SQL ? 'aioscope_fast_tick' : 'aioscope_fast_tick_no_aios',
        text: sql,
      });
      const sampleMs = performance.now() - started;
      const row = result.rows[0];
      if (row === undefined) return;
      const sample = parseFastTickRow(row);
      const processesDue = sample.t - this.processesSentAt >= PROCESSES_INTERVAL_MS;
      if (this.detailsStale(sample, processesDue)) await this.readProcessDetails(client, sample);
      this.noteProcessesSeen(sample);
      const { frame, ioKeys } = buildLiveFrame(sample, {
        previousIoKeys: this.previousIoKeys,
        sampleMs,
        skippedTicks: this.skippedSinceFrame,
      });
      this.previousIoKeys = ioKeys;
      // Only pids whose details were read: the scan tracker keeps its last label for the others.
      const activityByPid = new Map(
        sample.processes.flatMap((p) => {
          const details = this.detailsByPid.get(p.pid);
          return details === undefined ? [] : [[p.pid, activityOf(p.backendType, details.queryPreview)] as const];
        }),
      );
      if (sample.aios !== null) {
        const scans = this.scanTracker.update({
          t: sample.t,
          aios: sample.aios,
          activityByPid,
          queryStartByPid: new Map(sample.processes.map((p) => [p.pid, p.queryStart])),
          resolve: (file) => this.resolver.lookup(file),
          blockSize: this.server?.blockSize ?? 8192,
        });
        // The tracker follows every sample; the map travels on at most SCANS_PER_SECOND frames.
        if (sample.t - this.scansSentAt >= 1000 / SCANS_PER_SECOND) {
          frame.scans = scans;
          this.scansSentAt = sample.t;
        }
      }
      // Built only when due (2 Hz), not on every 20-100 Hz tick: nothing else reads it in between.
      if (processesDue) {
        this.latestProcesses = buildProcessViews(
          withDetails(sample.processes, this.detailsByPid),
          frame.byProcess,
          this.concurrencySettings(),
        );
        this.processesSentAt = sample.t;
        for (const listener of this.processListeners) listener({ t: sample.t, processes: this.latestProcesses });
      }
      this.skippedSinceFrame = 0;
      this.record(frame);
      this.setState('live', this.degradedMessage());
    } catch (error) {
      if ((error as { code?: string }).code === '42501') {
        // A privilege was revoked while running: re-read capabilities and degrade, do not disconnect.
        this.capabilities = null;
        this.setState('live', `${describeDatabaseError(error)}: re-reading privileges`);
        return;
      }
      if (isConnectionLevelError(error)) {
        // The server may come back as another version or with other settings: read them again.
        this.server = null;
        this.capabilities = null;
        this.previousIoKeys = new Set();
        this.detailsByPid = new Map();
        // The server that answers next may have another clock (restart, failover): due at once.
        this.detailsReadAt = -Infinity;
        this.processesSentAt = -Infinity;
        this.scansSentAt = -Infinity;
        await this.fastSession.discard();
      }
      this.failed(error);
    }
  }

  /** Whether the tick's processes need their details (re-)read before the frame is built. */
  private detailsStale(sample: FastTickSample, processesDue: boolean): boolean {
    if (sample.processes.length === 0) return false;
    if (processesDue) return true;
    if (sample.t - this.detailsReadAt < PROCESS_DETAILS_MIN_INTERVAL_MS) return false;
    return sample.processes.some((process) => {
      const known = this.detailsByPid.get(process.pid);
      return known === undefined || known.readAtQueryStart !== process.queryStart;
    });
  }

  /**
   * Reads the tick's pids' details. A failure that is not the connection's (a statement timeout
   * on a busy server) keeps the previous details: they only label, the frame must not be lost.
   */
  private async readProcessDetails(client: pg.Client, sample: FastTickSample): Promise<void> {
    const pids = sample.processes.map((process) => process.pid);
    let rows: ProcessDetailsQueryRow[];
    try {
      const result = await client.query<ProcessDetailsQueryRow>({
        name: 'aioscope_process_details',
        text: PROCESS_DETAILS_SQL,
        values: [pids],
      });
      rows = result.rows;
    } catch (error) {
      if (isConnectionLevelError(error)) throw error;
      this.detailsReadAt = sample.t;
      return;
    }
    const queryStartByPid = new Map(sample.processes.map((process) => [process.pid, process.queryStart]));
    const read = new Map<number, ProcessDetails>();
    for (const row of rows) {
      const details = parseProcessDetails(row);
      if (details !== null) read.set(details.pid, details);
    }
    for (const pid of pids) {
      // A pid that ended between the two queries has no row: remember it as read, with no details.
      const details = read.get(pid) ?? {
        pid,
        databaseOid: null,
        database: null,
        user: null,
        state: null,
        queryPreview: null,
      };
      this.detailsByPid.set(pid, { ...details, readAtQueryStart: queryStartByPid.get(pid) ?? null, seenAt: sample.t });
    }
    this.detailsReadAt = sample.t;
  }

  /** Marks the tick's pids as seen and forgets details of pids absent for PROCESS_DETAILS_KEEP_MS. */
  private noteProcessesSeen(sample: FastTickSample): void {
    for (const process of sample.processes) {
      const known = this.detailsByPid.get(process.pid);
      if (known !== undefined) known.seenAt = sample.t;
    }
    for (const [pid, known] of this.detailsByPid) {
      if (sample.t - known.seenAt > PROCESS_DETAILS_KEEP_MS) this.detailsByPid.delete(pid);
    }
  }

  private concurrencySettings(): {
    effectiveIoConcurrency: number | null;
    maintenanceIoConcurrency: number | null;
    ioMaxConcurrency: number | null;
  } {
    const value = (name: string): number | null =>
      this.server?.settings.find((setting) => setting.name === name)?.value ?? null;
    return {
      effectiveIoConcurrency: value('effective_io_concurrency'),
      maintenanceIoConcurrency: value('maintenance_io_concurrency'),
      ioMaxConcurrency: value('io_max_concurrency'),
    };
  }

  private degradedMessage(): string | null {
    if (this.capabilities === null) return null;
    if (!this.capabilities.hasPgAios) {
      return `PostgreSQL ${this.server?.version ?? ''} has no asynchronous I/O (18+): only pg_stat_io is shown.`;
    }
    if (!this.capabilities.canReadPgAios) {
      return 'pg_aios is not readable by this role: GRANT pg_read_all_stats (or pg_monitor) to it.';
    }
    return null;
  }

  private record(frame: LiveFrame): void {
    appendBounded(this.frames, frame, MAX_FRAMES);
    const oldest = frame.t - FRAME_HISTORY_SECONDS * 1000;
    let drop = 0;
    while (drop < this.frames.length && (this.frames[drop] as LiveFrame).t < oldest) drop++;
    if (drop > 0) this.frames.splice(0, drop);
    this.status.lastFrameAt = frame.t;
    for (const listener of this.frameListeners) listener(frame);
  }

  private async readServerInfo(client: pg.Client): Promise<void> {
    const info = await client.query<ServerInfoQueryRow>(SERVER_INFO_SQL);
    const settings = await client.query<SettingQueryRow>(SETTINGS_SQL, [IO_SETTING_NAMES]);
    const row = info.rows[0];
    if (row === undefined) throw new Error('server info query returned no row');
    this.server = parseServerInfo(row, settings.rows);
    this.capabilities = parseCapabilities(row);
    this.settingsReadAt = performance.now();
  }

  private async statTick(): Promise<void> {
    let client: pg.Client | null;
    try {
      client = await this.statSession.get();
    } catch {
      return; // the fast tick reports connection state
    }
    if (client === null) return;
    try {
      // Degraded by a missing privilege: look again sooner, so a GRANT shows within seconds.
      const refreshMs =
        this.capabilities?.canReadPgAios === false && this.capabilities.hasPgAios
          ? DEGRADED_REFRESH_MS
          : SETTINGS_REFRESH_MS;
      if (performance.now() - this.settingsReadAt > refreshMs) await this.readServerInfo(client);
      if (this.server === null || unsupportedVersionMessage(this.server.version, this.server.versionNum) !== null)
        return;
      const result = await client.query<StatIoQueryRow>({
        name: `aioscope_stat_io_${this.server.versionNum >= 180000 ? 18 : 16}`,
        text: statIoSql(this.server.versionNum),
      });
      const counters = parseStatIoRows(result.rows);
      if (counters === null) return;
      const previous = this.previousCounters;
      this.previousCounters = counters;
      if (previous === null) return;
      const delta = diffIoCounters(previous, counters);
      appendBounded(this.ioDeltas, delta, MAX_IO_DELTAS);
      for (const listener of this.deltaListeners) listener(delta);
    } catch (error) {
      if (isConnectionLevelError(error)) {
        // Counters after a reconnection may belong to a restarted server: never diff across it.
        this.previousCounters = null;
        await this.statSession.discard();
      }
    }
  }
}
