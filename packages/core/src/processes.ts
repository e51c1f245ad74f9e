import type { LiveFrame, ProcessView } from '@aioscope/spec';
import type { ProcessRow } from './fastTick.ts';
import { activityOf, isMaintenanceActivity } from './scans.ts';

export interface ConcurrencySettings {
  effectiveIoConcurrency: number | null;
  maintenanceIoConcurrency: number | null;
  ioMaxConcurrency: number | null;
}

/**
 * The processes table: every process in the sample (io workers, processes with reads in flight,
 * processes in AIO waits), with its reads in flight against the limit for what it is doing. The
 * limits are the server's settings: a session may have SET its own, which SQL cannot see.
 */
export function buildProcessViews(
  processes: readonly ProcessRow[],
  byProcess: LiveFrame['byProcess'],
  settings: ConcurrencySettings,
): ProcessView[] {
  const views = processes.map((process): ProcessView => {
    const activity = activityOf(process.backendType, process.queryPreview);
    const maintenance = isMaintenanceActivity(activity);
    const [readsInFlight, bytesInFlight] = byProcess[process.pid] ?? [0, 0];
    return {
      pid: process.pid,
      backendType: process.backendType,
      database: process.database,
      user: process.user,
      state: process.state,
      queryStart: process.queryStart,
      queryPreview: process.queryPreview,
      waitEventType: process.waitEventType,
      waitEvent: process.waitEvent,
      readsInFlight,
      bytesInFlight,
      limit: maintenance
        ? { name: 'maintenance_io_concurrency', value: settings.maintenanceIoConcurrency }
        : { name: 'effective_io_concurrency', value: settings.effectiveIoConcurrency },
      ioMaxConcurrency: settings.ioMaxConcurrency,
      activity,
    };
  });
  // Busiest first; io workers after the processes they serve, by pid.
  return views.sort(
    (a, b) => b.readsInFlight - a.readsInFlight || a.backendType.localeCompare(b.backendType) || a.pid - b.pid,
  );
}
