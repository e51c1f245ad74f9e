import { fleetAttention, toRollupPoint, trailingSteps, VERDICT_WINDOW_MS, workerVerdict } from '@aioscope/core';
import { OVERVIEW_STEP_MS, type Overview, type OverviewRow, type TargetsFileState } from '@aioscope/spec';
import { sharedAuditCache } from '../metrics/auditCache.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import { followMonitors, type FleetEntryView, type MonitorChanges } from './monitorRegistry.ts';
import { TargetOverview } from './targetOverview.ts';

/** Where the overview's facts come from besides the monitors themselves. */
export interface OverviewSources {
  monitors: ReadonlyMap<string, TargetMonitor>;
  /** Follows targets added and removed at reload; without it, the monitors present at start. */
  changes?: MonitorChanges;
  /** Labels and requested rate per target (the targets file); absent: no labels, the monitor's rate. */
  view?: (id: string) => FleetEntryView | undefined;
  targetsFile?: () => TargetsFileState | null;
  now?: () => number;
  /** --replica-name: each row names this replica as its target's sampler, as /api/targets does. */
  replicaName?: string;
}

/** The overview's order: most in need of attention first, then by name. Sorts in place. */
export function byAttention(rows: OverviewRow[]): OverviewRow[] {
  return rows.sort((a, b) => b.attention.score - a.attention.score || a.target.name.localeCompare(b.target.name));
}

/**
 * GET /api/overview's data: a TargetOverview per monitor, kept from the monitor's events, and the
 * attention rules of core applied to it at request time. Audits come from the cache /metrics
 * shares, refreshed in the background, so a request never waits on a target.
 */
export class OverviewTracker {
  private readonly tracked = new Map<TargetMonitor, TargetOverview>();
  private readonly stop: () => void;
  private readonly now: () => number;

  constructor(private readonly sources: OverviewSources) {
    this.now = sources.now ?? Date.now;
    this.stop = followMonitors(sources.monitors, sources.changes, (monitor) => {
      const overview = new TargetOverview(this.now);
      this.tracked.set(monitor, overview);
      const unsubscribe = [
        monitor.on('frame', (frame) => overview.addFrame(frame)),
        monitor.on('ioDelta', (delta) => overview.addIoDelta(delta)),
      ];
      return () => {
        for (const off of unsubscribe) off();
        this.tracked.delete(monitor);
      };
    });
  }

  overview(): Overview {
    const rows: OverviewRow[] = [];
    for (const monitor of this.sources.monitors.values()) {
      const tracked = this.tracked.get(monitor);
      if (tracked !== undefined) rows.push(this.row(monitor, tracked));
    }
    return { rows: byAttention(rows), targetsFile: this.sources.targetsFile?.() ?? null };
  }

  close(): void {
    this.stop();
  }

  private row(monitor: TargetMonitor, tracked: TargetOverview): OverviewRow {
    const summary = monitor.summary();
    const target = this.sources.replicaName === undefined ? summary : { ...summary, replica: this.sources.replicaName };
    const view = this.sources.view?.(monitor.id);
    const report = sharedAuditCache(monitor).current(target.status.state === 'live');
    const auditWarnings = report === null ? null : report.findings.filter((f) => f.level === 'warn').length;
    // The worker verdict's own window (10 s): 1,000 frames at 100 Hz at most.
    const frames = monitor.recentFrames(Math.ceil((VERDICT_WINDOW_MS / 1000) * target.sampleRateHz) + 1);
    const attention = fleetAttention({
      status: target.status,
      capabilities: target.capabilities,
      now: this.now(),
      lastFrameReceivedAt: tracked.lastFrameAt,
      workers: workerVerdict(frames, target.server?.ioMethod ?? null),
      bulkReads: tracked.bulkReads(),
      ioCombineLimitBytes: target.server?.ioCombineLimitBytes ?? null,
      auditWarnings,
    });
    const sampling = tracked.sampling();
    return {
      target,
      labels: view?.labels ?? {},
      attention,
      sparkline: {
        stepMs: OVERVIEW_STEP_MS,
        points: trailingSteps(tracked.points(), OVERVIEW_STEP_MS).map(toRollupPoint),
      },
      auditWarnings,
      sampling: {
        achievedHz: Math.round(sampling.achievedHz * 10) / 10,
        requested: view?.requested ?? target.sampleRateHz,
        dbCostShare: sampling.costShare,
      },
    };
  }
}
