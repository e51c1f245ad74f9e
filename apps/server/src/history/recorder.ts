import type { RollupAccumulator } from '@aioscope/core';
import type { AuditFinding, AuditReport, HistoryEvent, HistoryEventKind, TargetSummary } from '@aioscope/spec';
import type { MonitorFeed } from '../sampler/monitorEvents.ts';
import {
  INITIAL_WATCHED_STATE,
  auditChanges,
  observe,
  type Observation,
  type WatchedState,
} from './eventDerivation.ts';
import type { HistoryStore } from './historyStore.ts';
import { SecondRollups } from './secondRollups.ts';
import { RAW_KIND, type TargetDescription } from './storeEngine.ts';

/** The target's settings audit as the recorder follows it (metrics/auditCache.ts, shared with /metrics). */
export interface AuditFeed {
  /** The newest report; `mayRefresh` lets it read the target again when its interval is over. */
  current(mayRefresh: boolean): AuditReport | null;
  /** Reads the audit again now (the settings changed). */
  refresh(): Promise<void>;
  onReport(listener: (report: AuditReport) => void): () => void;
}

/**
 * Records one target: a consumer of its monitor's events, like the live hub. Every handler only
 * appends to the store's in-memory batch (the sampler never waits for the disk); roll-ups of each
 * second are handed over once complete; events are derived from statuses, server info and deltas,
 * and others (the lab, the store itself) add theirs with addEvent.
 */
export class Recorder {
  private watched: WatchedState = INITIAL_WATCHED_STATE;
  private readonly rollups = new SecondRollups();
  private readonly unsubscribes: (() => void)[] = [];
  /** The findings of the last audit seen; null before the first (which marks nothing). */
  private auditFindings: readonly AuditFinding[] | null = null;

  constructor(
    private readonly feed: MonitorFeed,
    private readonly store: Pick<HistoryStore, 'enqueue'>,
    private readonly initial: TargetSummary,
    private readonly audits: AuditFeed | null = null,
    /**
     * Replicas sharing a store: this replica's name, on each 'connected' marker, so the history
     * tells which replica sampled from then on (a handover reads as "connected, sampled by b").
     */
    private readonly sampledBy: string | null = null,
  ) {}

  /**
   * Subscribes, and takes what the monitor already knew (it may have connected before the store
   * opened). `previous` is what the store said about this target last time, for rateChanged.
   */
  start(previous: TargetDescription | null): void {
    const { status, server, capabilities } = this.initial;
    if (server !== null && capabilities !== null)
      this.note({ kind: 'serverInfo', server, capabilities, at: Date.now() });
    this.note({ kind: 'status', status });
    if (previous !== null && previous.sampleRateHz !== this.initial.sampleRateHz) {
      this.addEvent('rateChanged', `sample rate ${previous.sampleRateHz} Hz → ${this.initial.sampleRateHz} Hz`);
    }
    this.saveDescription();
    const target = this.feed.id;
    this.unsubscribes.push(
      this.feed.on('frame', (frame) => {
        const hasScans = frame.scans !== undefined;
        this.store.enqueue({
          table: 'raw',
          target,
          kind: RAW_KIND.frame,
          t: frame.t,
          hasScans,
          body: JSON.stringify(frame),
        });
        this.rollups.addFrame(frame);
        this.saveRollups(this.rollups.takeComplete());
      }),
      this.feed.on('ioDelta', (delta) => {
        this.store.enqueue({
          table: 'raw',
          target,
          kind: RAW_KIND.ioDelta,
          t: delta.t,
          hasScans: false,
          body: JSON.stringify(delta),
        });
        this.rollups.addIoDelta(delta);
        this.note({ kind: 'ioDelta', delta });
      }),
      this.feed.on('processes', ({ t, processes }) => {
        const body = JSON.stringify({ t, processes });
        this.store.enqueue({ table: 'raw', target, kind: RAW_KIND.processes, t, hasScans: false, body });
      }),
      this.feed.on('status', (next) => {
        const events = this.note({ kind: 'status', status: next });
        // The server info is read on connecting, before the first live status, when an audit read
        // is not yet allowed: the connection that goes live is what starts it.
        if (events.some((event) => event.kind === 'connected')) this.followAudit(false);
      }),
      this.feed.on('serverInfo', (info) => {
        const events = this.note({ kind: 'serverInfo', ...info, at: Date.now() });
        this.saveDescription();
        this.followAudit(events.length > 0);
      }),
    );
    this.startFollowingAudit();
  }

  /**
   * auditChanged markers: the audit is read with the server info (every 30 s at most, through the
   * cache /metrics shares) and at once when settings, privileges or the server changed; each report is
   * compared with the one before.
   */
  private startFollowingAudit(): void {
    if (this.audits === null) return;
    this.auditFindings = this.audits.current(false)?.findings ?? null;
    this.unsubscribes.push(
      this.audits.onReport((report) => {
        const before = this.auditFindings;
        this.auditFindings = report.findings;
        if (before === null) return;
        const changes = auditChanges(before, report.findings);
        if (changes.length > 0) this.addEvent('auditChanged', `audit: ${changes.join(', ')}`, report.checkedAt);
      }),
    );
    this.followAudit(false);
  }

  private followAudit(settingsChanged: boolean): void {
    if (this.audits === null || this.watched.live !== true) return;
    if (settingsChanged) void this.audits.refresh();
    else this.audits.current(true);
  }

  /** Unsubscribes and hands over the seconds still open (the store writes them on close). */
  stop(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    this.saveRollups(this.rollups.takeAll());
  }

  /** A marker on the time line: lab runs, recording paused or resumed, anything a plugin knows. */
  addEvent(kind: HistoryEventKind, message: string, t: number = Date.now()): void {
    this.save({ t, kind, message });
  }

  describe(): TargetDescription {
    return {
      target: { id: this.initial.id, name: this.initial.name },
      server: this.watched.server,
      capabilities: this.watched.capabilities,
      sampleRateHz: this.initial.sampleRateHz,
      statRateHz: this.initial.statRateHz,
    };
  }

  private note(observation: Observation): HistoryEvent[] {
    const derived = observe(this.watched, observation);
    this.watched = derived.state;
    for (const event of derived.events)
      this.save(
        event.kind === 'connected' && this.sampledBy !== null
          ? { ...event, message: `${event.message}, sampled by replica ${this.sampledBy}` }
          : event,
      );
    return derived.events;
  }

  private save(event: HistoryEvent): void {
    this.store.enqueue({ table: 'event', target: this.feed.id, event });
  }

  private saveRollups(accumulators: RollupAccumulator[]): void {
    for (const acc of accumulators) this.store.enqueue({ table: 'rollup', target: this.feed.id, acc });
  }

  private saveDescription(): void {
    const description = JSON.stringify(this.describe());
    this.store.enqueue({ table: 'target', target: this.feed.id, t: Date.now(), description });
  }
}
