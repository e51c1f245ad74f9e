import { indexAtOrAfter } from '@aioscope/core';
import type { HistoryFrames, IoStatDelta, LiveFrame, ProcessesSnapshot, ScanView } from '@aioscope/spec';

/**
 * The recorded past at one moment, read from a loaded range: which samples fall in a window, what
 * the scan map and processes table were. Binary searches, so a replay at 100 Hz over fifteen
 * minutes of frames costs microseconds per redraw.
 */

/** Index of the first item with t >= time (items sorted by t). */
export function firstAtOrAfter(items: readonly { t: number }[], time: number): number {
  return indexAtOrAfter(items, time);
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

/**
 * The processes tables a moment's table is built from: every list of the `keepMs` before `at`
 * (a process that left in them is still shown, dimmed), ending with the one shown at `at`. Only
 * the moment decides them, so a moment reached by playing, stepping or a fresh link draws the
 * same rows (were they carried over from the previous moment, a played moment kept processes a
 * fresh link did not show).
 */
export function processesLeadingTo(range: HistoryFrames, at: number, keepMs: number): ProcessesSnapshot[] {
  const end = firstAfter(range.processes, at);
  const recent = range.processes.slice(firstAtOrAfter(range.processes, at - keepMs), end);
  if (recent.length > 0) return recent;
  const shown = processesAt(range, at);
  return shown === null ? [] : [shown];
}

const firstSeenByRange = new WeakMap<HistoryFrames, Map<number, number>>();

/**
 * When each process first appears in the range's processes lists: the past's table keeps this
 * order, so rows hold their place through a replay (each list comes in the server's order) and a
 * link to a moment orders them as playing up to it did. Computed once per range.
 */
export function firstSeenInRange(range: HistoryFrames): ReadonlyMap<number, number> {
  const known = firstSeenByRange.get(range);
  if (known !== undefined) return known;
  const firstSeen = new Map<number, number>();
  const lists = range.processesBefore === null ? range.processes : [range.processesBefore, ...range.processes];
  for (const list of lists) {
    for (const process of list.processes) if (!firstSeen.has(process.pid)) firstSeen.set(process.pid, list.t);
  }
  firstSeenByRange.set(range, firstSeen);
  return firstSeen;
}

/**
 * The moment one sample after (or before) the sample shown at `at`, in whole ms as the URL keeps
 * it, or null past either end. Sample times carry fractions of a ms: the moment of a sample is its
 * time rounded up, so the sample is shown (t <= at), and the step goes from the sample shown, not
 * from `at` (rounded down or to nearest, a step found the same sample again and stuck there).
 */
export function stepMoment(frames: readonly LiveFrame[], at: number, direction: -1 | 1): number | null {
  const shown = firstAfter(frames, at) - 1;
  if (direction > 0) {
    const next = frames[shown + 1];
    return next === undefined ? null : Math.ceil(next.t);
  }
  const current = frames[shown];
  if (current === undefined) return null;
  // The newest earlier sample whose moment no longer shows the current one (two samples in one ms share a moment).
  for (let i = shown - 1; i >= 0; i--) {
    const moment = Math.ceil((frames[i] as LiveFrame).t);
    if (moment < current.t) return moment;
  }
  return null;
}

export interface Moment {
  /** Samples in [windowFrom, at]. */
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  scans: ScanView[];
  processes: ProcessesSnapshot | null;
  /** The processes lists the table of the moment is built from (processesLeadingTo), oldest first. */
  processHistory: ProcessesSnapshot[];
  /** The table's order: when each process first appears in the range (firstSeenInRange). */
  processOrder: ReadonlyMap<number, number>;
}

/**
 * Everything the panels need to draw `at`, with charts over [windowFrom, at]; the processes table
 * with the lists of the `keepMs` before it (a process that left stays that long, dimmed).
 */
export function momentOf(range: HistoryFrames, windowFrom: number, at: number, keepMs = 0): Moment {
  return {
    frames: range.frames.slice(firstAtOrAfter(range.frames, windowFrom), firstAfter(range.frames, at)),
    deltas: range.ioDeltas.slice(firstAtOrAfter(range.ioDeltas, windowFrom), firstAfter(range.ioDeltas, at)),
    scans: scansAt(range, at),
    processes: processesAt(range, at),
    processHistory: processesLeadingTo(range, at, keepMs),
    processOrder: firstSeenInRange(range),
  };
}
