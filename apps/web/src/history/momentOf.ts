import type { HistoryFrames, IoStatDelta, LiveFrame, ProcessesSnapshot, ScanView } from '@aioscope/spec';

/**
 * The recorded past at one moment, read from a loaded range: which samples fall in a window, what
 * the scan map and processes table were. Binary searches, so a replay at 100 Hz over fifteen
 * minutes of frames costs microseconds per redraw.
 */

/** Index of the first item with t >= time (items sorted by t). */
export function firstAtOrAfter(items: readonly { t: number }[], time: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((items[mid] as { t: number }).t < time) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Index of the first item with t > time. */
export function firstAfter(items: readonly { t: number }[], time: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((items[mid] as { t: number }).t <= time) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Items with from <= t < to. */
export function itemsIn<T extends { t: number }>(items: readonly T[], from: number, to: number): T[] {
  return items.slice(firstAtOrAfter(items, from), firstAtOrAfter(items, to));
}

/** The newest item with t <= time, or undefined. */
export function newestAtOrBefore<T extends { t: number }>(items: readonly T[], time: number): T | undefined {
  return items[firstAfter(items, time) - 1];
}

/** The scan map as it was at `time`: from the newest frame that carried one (frames carry it 5 times a second). */
export function scansAt(range: HistoryFrames, time: number): ScanView[] {
  const end = firstAfter(range.frames, time);
  for (let i = end - 1; i >= 0; i--) {
    const scans = (range.frames[i] as LiveFrame).scans;
    if (scans !== undefined) return scans;
  }
  return range.scansBefore?.scans ?? [];
}

/** The processes table as it was at `time`. */
export function processesAt(range: HistoryFrames, time: number): ProcessesSnapshot | null {
  return newestAtOrBefore(range.processes, time) ?? range.processesBefore;
}

export interface Moment {
  /** Samples in [windowFrom, at]. */
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  scans: ScanView[];
  processes: ProcessesSnapshot | null;
}

/** Everything the panels need to draw `at`, with charts over [windowFrom, at]. */
export function momentOf(range: HistoryFrames, windowFrom: number, at: number): Moment {
  return {
    frames: range.frames.slice(firstAtOrAfter(range.frames, windowFrom), firstAfter(range.frames, at)),
    deltas: range.ioDeltas.slice(firstAtOrAfter(range.ioDeltas, windowFrom), firstAfter(range.ioDeltas, at)),
    scans: scansAt(range, at),
    processes: processesAt(range, at),
  };
}
