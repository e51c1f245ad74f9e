import {
  SlidingWindow,
  appendBounded,
  nextStatus,
  type MonitorOutcome,
  type UpgradeTargetVersion,
} from '@aioscope/core';
import type {
  IoStatDelta,
  LiveFrame,
  ProcessDetail,
  ProcessView,
  AuditReport,
  TargetStatus,
  TargetSummary,
} from '@aioscope/spec';
import { RelationResolver } from '../targets/relationResolver.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { FastSampler } from './fastSampler.ts';
import { MonitorEmitter, type MonitorEventName, type MonitorFeed, type MonitorListener } from './monitorEvents.ts';
import { ServerInfoSource } from './serverInfoSource.ts';
import { STAT_INTERVAL_MS, StatSampler } from './statSampler.ts';
import { TargetInspector } from './targetInspector.ts';
import { startTicker, type Ticker } from './ticker.ts';

/** Seconds of recent frames kept in memory for the snapshot a joining viewer gets (the store keeps history). */
export const RECENT_FRAMES_SECONDS = 120;
/** Hard cap on kept frames whatever the rate (120 s at 100 Hz). */
export const MAX_FRAMES = 12_000;
/** pg_stat_io deltas kept (one per second). */
export const MAX_IO_DELTAS = 600;

export interface TargetMonitorOptions {
  sampleRateHz: number;
  demoWorkload: boolean;
  /** Where a consumer's exception is reported (it is never rethrown into the sampler). */
  onConsumerError?: (event: MonitorEventName, error: unknown) => void;
}

/**
 * Watches one target. The sources are modules of their own (fast sampler, stat sampler, server
 * info, on-demand inspector); the monitor schedules them, keeps the connection status and a
 * bounded window of recent frames and deltas (for snapshots), and tells consumers through one typed emitter.
 */
export class TargetMonitor implements MonitorFeed {
  readonly id: string;
  private readonly serverInfo = new ServerInfoSource();
  private readonly resolver: RelationResolver;
  private readonly fast: FastSampler;
  private readonly stat: StatSampler;
  private readonly inspector: TargetInspector;
  private readonly events: MonitorEmitter;
  private readonly frames = new SlidingWindow<LiveFrame>(MAX_FRAMES, RECENT_FRAMES_SECONDS * 1000);
  private readonly ioDeltas: IoStatDelta[] = [];
  private readonly tickers: Ticker[] = [];
  private fastTicker: Ticker | null = null;
  private sampleRateHz: number;
  private totalSkipped = 0;
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
    this.sampleRateHz = options.sampleRateHz;
    this.events = new MonitorEmitter(options.onConsumerError ?? (() => undefined));
    this.resolver = new RelationResolver(definition.clientConfig);
    this.fast = new FastSampler(definition, this.serverInfo, this.resolver, {
      frame: (frame) => this.recordFrame(frame),
      processes: (update) => this.events.emit('processes', update),
      outcome: (outcome) => this.apply(outcome),
    });
    this.stat = new StatSampler(definition, this.serverInfo, (delta) => {
      appendBounded(this.ioDeltas, delta, MAX_IO_DELTAS);
      this.events.emit('ioDelta', delta);
    });
    this.inspector = new TargetInspector(definition.id, definition, this.serverInfo);
    this.serverInfo.onRead((server, capabilities) => this.events.emit('serverInfo', { server, capabilities }));
  }

  /**
   * Starts sampling. `phase` (0 to 1) places this monitor's ticks on its interval: monitors started
   * together would otherwise tick at the same instants, their queries arriving as one burst.
   */
  start(phase = 0): void {
    const intervalMs = 1000 / this.sampleRateHz;
    this.fastTicker = startTicker({
      intervalMs,
      firstTickInMs: phase * intervalMs,
      run: () => this.fast.tick(),
      onSkipped: (count) => {
        this.fast.skipped(count);
        this.totalSkipped += count;
      },
    });
    this.tickers.push(
      this.fastTicker,
      startTicker({
        intervalMs: STAT_INTERVAL_MS,
        firstTickInMs: phase * STAT_INTERVAL_MS,
        run: () => this.stat.tick(),
      }),
    );
  }

  /** The fast tick's rate from now on (the cost budget moves it); summary() reports it. */
  setSampleRate(hz: number): void {
    this.sampleRateHz = hz;
    this.fastTicker?.setIntervalMs(1000 / hz);
  }

  async stop(): Promise<void> {
    this.fastTicker = null;
    for (const ticker of this.tickers.splice(0)) ticker.stop();
    await Promise.all([this.fast.close(), this.stat.close(), this.inspector.close(), this.resolver.close()]);
  }

  on<E extends MonitorEventName>(event: E, listener: MonitorListener<E>): () => void {
    return this.events.on(event, listener);
  }

  summary(): TargetSummary {
    return {
      id: this.definition.id,
      name: this.definition.name,
      kind: this.definition.kind,
      status: this.currentStatus(),
      server: this.serverInfo.server,
      capabilities: this.serverInfo.capabilities,
      sampleRateHz: this.sampleRateHz,
      statRateHz: 1000 / STAT_INTERVAL_MS,
      demoWorkload: this.options.demoWorkload,
      recording: null,
    };
  }

  /** The version the server answered, also when too old to watch (summary().server is null then). */
  serverVersion(): string | null {
    return this.serverInfo.version();
  }

  currentStatus(): TargetStatus {
    return { ...this.status, skippedTicks: this.totalSkipped };
  }

  recentFrames(maxFrames: number): LiveFrame[] {
    return this.frames.newest(maxFrames);
  }

  recentIoDeltas(): IoStatDelta[] {
    return [...this.ioDeltas];
  }

  currentProcesses(): ProcessView[] {
    return this.fast.latestProcesses;
  }

  processDetail(pid: number): Promise<ProcessDetail | null> {
    return this.inspector.processDetail(pid);
  }

  audit(targetVersion?: UpgradeTargetVersion): Promise<AuditReport> {
    return this.inspector.audit(targetVersion);
  }

  private apply(outcome: MonitorOutcome): void {
    const next = nextStatus(this.status, outcome, Date.now());
    if (next === this.status) return;
    this.status = next;
    this.events.emit('status', this.currentStatus());
  }

  private recordFrame(frame: LiveFrame): void {
    this.frames.push(frame);
    this.status.lastFrameAt = frame.t;
    this.events.emit('frame', frame);
  }
}
