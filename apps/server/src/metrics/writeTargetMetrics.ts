import { CONNECTION_STATES, type AuditReport, type LiveFrame, type TargetSummary } from '@aioscope/spec';
import { parseStatIoGroupKey } from '@aioscope/core';
import type { MetricFamilies } from './metricFamilies.ts';
import type { ScrapeInterval, TargetTally } from './targetTally.ts';

/**
 * Newest-sample gauges are left out once that sample is older than this: a sampler that stopped
 * must not report its last reads in flight as if they were still there.
 */
export const LATEST_FRESH_MS = 5_000;

type Labels = { target: string; target_name: string };

export interface TargetScrape {
  summary: TargetSummary;
  tally: TargetTally;
  interval: ScrapeInterval;
  audit: AuditReport | null;
  /** The version the server answered, also when it is too old to watch (summary.server is null then). */
  serverVersion: string | null;
  now: number;
}

/** Where an idle io worker waits: not an I/O wait (the busy share counts it apart). */
const IDLE_WORKER_WAIT = 'IoWorkerMain';

/** "client backend:DataFileRead" → its two labels; the wait event never holds a colon. */
function waitLabels(key: string): { backend_type: string; wait_event: string } {
  const colon = key.lastIndexOf(':');
  return { backend_type: key.slice(0, colon), wait_event: key.slice(colon + 1) };
}

function writeHealth(f: MetricFamilies, labels: Labels, scrape: TargetScrape): void {
  const { summary, tally, interval, now } = scrape;
  // A label that is not known is left out rather than written empty.
  const version = summary.server?.version ?? scrape.serverVersion;
  const ioMethod = summary.server?.ioMethod ?? null;
  f.targetInfo.set(
    {
      ...labels,
      kind: summary.kind,
      ...(version === null ? {} : { version }),
      ...(ioMethod === null ? {} : { io_method: ioMethod }),
    },
    1,
  );
  for (const state of CONNECTION_STATES)
    f.connectionState.set({ ...labels, state }, summary.status.state === state ? 1 : 0);
  const capabilities = summary.capabilities;
  if (capabilities !== null) {
    if (capabilities.hasPgAios)
      f.rolePrivilege.set({ ...labels, privilege: 'read_pg_aios' }, capabilities.canReadPgAios ? 1 : 0);
    f.rolePrivilege.set({ ...labels, privilege: 'see_all_activity' }, capabilities.canSeeAllActivity ? 1 : 0);
  }
  f.sampleRate.set(labels, summary.sampleRateHz);
  if (interval.seconds > 0) f.achievedRate.set(labels, interval.point.frames / interval.seconds);
  f.lastSampleAge.set(labels, (now - (tally.latestAt ?? tally.watchedSince)) / 1000);
  f.samples.inc(labels, tally.totals.samples);
  f.skippedTicks.inc(labels, summary.status.skippedTicks);
}

function writeTotals(f: MetricFamilies, labels: Labels, tally: TargetTally, workerMethod: boolean): void {
  const totals = tally.totals;
  f.newReads.inc(labels, totals.newReads);
  f.newReadBytes.inc(labels, totals.newReadBytes);
  if (workerMethod) {
    f.workerSamples.inc(labels, totals.workerSamples);
    f.workerBusySamples.inc(labels, totals.workerBusy);
  }
  for (const [key, sum] of Object.entries(totals.statByGroup)) {
    const group = parseStatIoGroupKey(key);
    if (group === null) continue;
    const rowLabels = { ...labels, backend_type: group.backendType, object: group.object, context: group.context };
    f.statReads.inc(rowLabels, sum.reads);
    f.statReadBytes.inc(rowLabels, sum.readBytes);
    f.statReadTime.inc(rowLabels, sum.readTimeMs / 1000);
  }
  f.statResets.inc(labels, totals.statResets);
}

function writeLatest(
  f: MetricFamilies,
  labels: Labels,
  frame: LiveFrame,
  workerMethod: boolean,
  seenWaits: ReadonlySet<string>,
): void {
  if (frame.inflight !== null) {
    f.readsInFlight.set(labels, frame.inflight.total.count);
    f.bytesInFlight.set(labels, frame.inflight.total.bytes);
    if (frame.inflight.workerBacklog !== null) f.backlog.set(labels, frame.inflight.workerBacklog);
  }
  if (workerMethod) f.ioWorkers.set(labels, frame.ioWorkers.length);
  for (const key of seenWaits) {
    const wait = waitLabels(key);
    if (wait.wait_event !== IDLE_WORKER_WAIT) f.waiting.set({ ...labels, ...wait }, frame.waits[key] ?? 0);
  }
}

function writeInterval(
  f: MetricFamilies,
  labels: Labels,
  { point }: ScrapeInterval,
  workerMethod: boolean,
  seenWaits: ReadonlySet<string>,
): void {
  if (point.frames === 0) return;
  if (point.inflightKnown) {
    f.readsInFlightMax.set(labels, point.readsInFlight.max);
    f.readsInFlightMean.set(labels, point.readsInFlight.mean);
    f.bytesInFlightMax.set(labels, point.bytesInFlight.max);
    f.bytesInFlightMean.set(labels, point.bytesInFlight.mean);
  }
  if (point.newReads > 0) f.liveReadSize.set(labels, point.newReadBytes / point.newReads);
  if (point.workerBacklog !== null) {
    f.backlogMax.set(labels, point.workerBacklog.max);
    f.backlogMean.set(labels, point.workerBacklog.mean);
  }
  if (workerMethod && point.workerSamples > 0) f.workerBusy.set(labels, point.workerBusy / point.workerSamples);
  for (const key of seenWaits) {
    const wait = waitLabels(key);
    if (wait.wait_event !== IDLE_WORKER_WAIT) f.waitingMean.set({ ...labels, ...wait }, point.waits[key] ?? 0);
  }
}

function writeAudit(f: MetricFamilies, labels: Labels, audit: AuditReport): void {
  f.auditCheckedAt.set(labels, audit.checkedAt / 1000);
  for (const finding of audit.findings) {
    const rule = { ...labels, rule: finding.rule, title: finding.title };
    f.auditWarning.set(rule, finding.level === 'warn' ? 1 : 0);
    f.auditInfo.set({ ...rule, level: finding.level, value: finding.value }, 1);
  }
}

/**
 * Writes one target's series into families that were reset for this scrape. Figures that do not
 * apply are left out, never written as 0: the io worker pool and backlog exist only under
 * io_method = worker, and a server without pg_aios has no reads in flight to report. A wait event
 * no process is in is 0 once it has been seen (TargetTally.seenWaits): then it does apply.
 */
export function writeTargetMetrics(f: MetricFamilies, scrape: TargetScrape): void {
  const { summary, tally } = scrape;
  const labels: Labels = { target: summary.id, target_name: summary.name };
  const workerMethod = summary.server?.ioMethod === 'worker';
  writeHealth(f, labels, scrape);
  writeTotals(f, labels, tally, workerMethod);
  const latest = tally.latest;
  if (latest !== null && tally.latestAt !== null && scrape.now - tally.latestAt <= LATEST_FRESH_MS) {
    writeLatest(f, labels, latest, workerMethod, tally.seenWaits);
  }
  writeInterval(f, labels, scrape.interval, workerMethod, tally.seenWaits);
  const exact = tally.exactBytesPerRead();
  const deltaFresh = tally.latestDeltaAt !== null && scrape.now - tally.latestDeltaAt <= LATEST_FRESH_MS;
  if (exact !== null && deltaFresh) f.exactReadSize.set(labels, exact);
  const combineLimit = summary.server?.ioCombineLimitBytes ?? null;
  if (combineLimit !== null) f.ioCombineLimit.set(labels, combineLimit);
  if (scrape.audit !== null) writeAudit(f, labels, scrape.audit);
}
