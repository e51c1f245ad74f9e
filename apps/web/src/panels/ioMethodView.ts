import {
  ioMethodOf,
  relevantWaitEvents,
  settingApplies,
  STATE_SERIES,
  stateGroups,
  type IoMethod,
  type SeriesLine,
  type StateGroup,
} from '@aioscope/core';
import type { ServerSetting, TargetSummary } from '@aioscope/spec';

/**
 * What the page says depends on the server's io_method: the same pg_aios state, setting or wait
 * event means something else (or nothing) under worker, io_uring and sync. The meanings live in
 * core/ioMethod.ts; this is how the panels show them.
 */
export function ioMethodOfTarget(target: TargetSummary | undefined): IoMethod | null {
  return ioMethodOf(target?.server?.ioMethod);
}

export interface StateSeries extends StateGroup {
  /** The group's series in core's SERIES (its colour kept whatever the method calls it). */
  line: SeriesLine;
}

/** The reads-in-flight series, named for the server's io_method ("in the kernel" under io_uring). */
export function inflightStateSeries(method: IoMethod | null): StateSeries[] {
  return stateGroups(method).map((group) => ({ ...group, line: { series: STATE_SERIES[group.key], stat: 'mean' } }));
}

/**
 * Worker figures (backlog, busy share, pool size) exist only under io_method = worker: under
 * io_uring a SUBMITTED read is in the kernel, under sync the backend reads it itself.
 */
export function showsWorkerFigures(method: IoMethod | null): boolean {
  return method === 'worker';
}

/** Settings in the header: the wanted names in order, without those that do nothing under this method. */
export function headerSettings(
  settings: readonly ServerSetting[],
  wanted: readonly string[],
  method: IoMethod | null,
): ServerSetting[] {
  return wanted
    .filter((name) => settingApplies(name, method))
    .flatMap((name) => settings.filter((setting) => setting.name === name));
}

/** The wait-events caption: which events matter under this method and what each means. */
export function waitEventsCaption(method: IoMethod | null): string {
  const { events, note } = relevantWaitEvents(method);
  if (method === null || events.length === 0) {
    return 'AioIoCompletion: a backend waits for a read to complete. DataFileRead: a synchronous read. BufferIo: waiting on another backend\u2019s read of the same buffer.';
  }
  return `Under io_method = ${method}, watch ${events.join(', ')}. ${note}`;
}
