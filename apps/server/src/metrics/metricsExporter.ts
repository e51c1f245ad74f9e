import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { AuditReport, TargetSummary } from '@aioscope/spec';
import type { MonitorFeed } from '../sampler/monitorEvents.ts';
import { sharedAuditCache, type AuditCache } from './auditCache.ts';
import { createMetricFamilies, type MetricFamilies } from './metricFamilies.ts';
import { registerReplicaMetrics, type ReplicaState } from './replicaMetrics.ts';
import { TargetTally } from './targetTally.ts';
import { writeTargetMetrics } from './writeTargetMetrics.ts';

/** What /metrics needs of a target's monitor (TargetMonitor has it; tests and the bench feed fakes). */
export interface MetricsSource extends MonitorFeed {
  summary(): TargetSummary;
  audit(): Promise<AuditReport>;
  /** The version the server answered, also when it is too old to watch; null before it answered. */
  serverVersion(): string | null;
}

/**
 * Scrapers that may keep an interval of their own (`/metrics?scraper=NAME`) besides the default
 * one: each named scraper's max/mean cover the time since its own previous scrape. Bounded, since
 * each costs one roll-up per target on every frame.
 */
export const MAX_NAMED_SCRAPERS = 4;

/**
 * How often prom-client's event-loop-delay histogram samples, in ms. Its default, 10 ms, is a
 * timer of its own firing 100 times a second: it woke aioscope's idle loop more often than the
 * 20 Hz sampler and its answers together, and cost 0.35 % of a core on its own (a bare node here).
 * At 100 ms every stall longer than that still shows, shorter ones in proportion to their length
 * (the sampler's own late and skipped ticks count those exactly), for a tenth of the wake-ups.
 */
const EVENT_LOOP_DELAY_RESOLUTION_MS = 100;

const MISNAMED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export interface MetricsExporterOptions {
  /** aioscope's clock (tests pass their own). */
  now?: () => number;
  /** The process's own metrics (prom-client's defaults: CPU, memory, event loop lag, GC). */
  processMetrics?: boolean;
  /** A replica sharing a store (--store): its part, and a replica label on every series. */
  replica?: () => ReplicaState;
}

interface Watched {
  source: MetricsSource;
  tally: TargetTally;
  audit: AuditCache;
  labels: { target: string; target_name: string };
  unsubscribe: (() => void)[];
}

/**
 * The Prometheus exposition of every watched target, on a registry of its own (not prom-client's
 * global one, so two apps in one process never share series). Targets are followed per monitor:
 * the map is checked on every scrape, new monitors are subscribed and removed ones forgotten.
 */
export class MetricsExporter {
  readonly registry = new Registry();
  private readonly families: MetricFamilies;
  private readonly watched = new Map<string, Watched>();
  private readonly scrapers = new Set<string>();
  private readonly now: () => number;

  constructor(
    private readonly monitors: ReadonlyMap<string, MetricsSource>,
    options: MetricsExporterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.families = createMetricFamilies(this.registry);
    if (options.replica !== undefined) registerReplicaMetrics(this.registry, options.replica);
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_DELAY_RESOLUTION_MS });
      // prom-client names these gauges with _total, which Prometheus reserves for counters
      // (promtool check metrics flags them); the handle and request counts are not worth a lint error.
      for (const name of MISNAMED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
    }
    this.sync();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Subscribes to monitors that joined the map and forgets those that left it. */
  sync(): void {
    for (const [id, source] of this.monitors) if (this.watched.get(id)?.source !== source) this.watch(id, source);
    for (const id of this.watched.keys()) if (!this.monitors.has(id)) this.forget(id);
  }

  /**
   * The exposition for one scraper ('' is the default one), or null when a new named scraper
   * would exceed MAX_NAMED_SCRAPERS.
   */
  async scrape(scraper = ''): Promise<string | null> {
    if (scraper !== '' && !this.scrapers.has(scraper)) {
      if (this.scrapers.size >= MAX_NAMED_SCRAPERS) return null;
      this.scrapers.add(scraper);
    }
    this.sync();
    const now = this.now();
    // Rewritten from the tallies on every scrape, so a figure that stopped applying disappears.
    for (const family of Object.values(this.families)) if (!(family instanceof Histogram)) family.reset();
    for (const { source, tally, audit } of this.watched.values()) {
      const summary = source.summary();
      writeTargetMetrics(this.families, {
        summary,
        tally,
        interval: tally.takeInterval(scraper, now),
        audit: audit.current(summary.status.state === 'live'),
        serverVersion: source.serverVersion(),
        now,
      });
    }
    return this.registry.metrics();
  }

  /** Unsubscribes from every monitor and waits for running audit reads. */
  async close(): Promise<void> {
    const watched = [...this.watched.values()];
    for (const id of [...this.watched.keys()]) this.forget(id);
    await Promise.all(watched.map((w) => w.audit.settled()));
  }

  private watch(id: string, source: MetricsSource): void {
    this.forget(id);
    const tally = new TargetTally(this.now());
    const labels = { target: id, target_name: source.summary().name };
    const sampleDuration = this.families.sampleDuration;
    this.watched.set(id, {
      source,
      tally,
      labels,
      audit: sharedAuditCache(source, this.now),
      unsubscribe: [
        source.on('frame', (frame) => {
          tally.addFrame(frame, this.now());
          sampleDuration.observe(labels, frame.sampleMs / 1000);
        }),
        source.on('ioDelta', (delta) => tally.addIoDelta(delta, this.now())),
      ],
    });
  }

  private forget(id: string): void {
    const watched = this.watched.get(id);
    if (watched === undefined) return;
    for (const unsubscribe of watched.unsubscribe) unsubscribe();
    this.families.sampleDuration.remove(watched.labels);
    this.watched.delete(id);
  }
}
