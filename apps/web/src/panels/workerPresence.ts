import type { LiveFrame } from '@aioscope/spec';

/**
 * An io worker is listed while it is in the newest frames: one seen this recently (server clock,
 * before the newest frame) still exists. Long enough to ride over a skipped tick or two at 1 Hz,
 * short enough that workers gone with an io_method restart or a shrinking pool (PostgreSQL 19)
 * leave the list at once rather than after the 60 s window.
 */
export const WORKER_PRESENT_MS = 2_000;

/** Pids of the io workers seen in the newest WORKER_PRESENT_MS of frames (ordered by time). */
export function presentWorkerPids(frames: readonly LiveFrame[], withinMs = WORKER_PRESENT_MS): Set<number> {
  const present = new Set<number>();
  const newest = frames[frames.length - 1];
  if (newest === undefined) return present;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i] as LiveFrame;
    if (frame.t < newest.t - withinMs) break;
    for (const worker of frame.ioWorkers) present.add(worker.pid);
  }
  return present;
}

/** Only the entries of workers that still exist, in their order. */
export function presentWorkersOnly<T extends { pid: number }>(perWorker: readonly T[], present: Set<number>): T[] {
  return perWorker.filter((worker) => present.has(worker.pid));
}
