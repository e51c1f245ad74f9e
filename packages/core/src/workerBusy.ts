import type { LiveFrame } from '@aioscope/spec';

/**
 * io worker busy share: of all (io worker × sample) pairs, the share in which the worker was busy
 * (any wait but IoWorkerMain). One definition for every place that shows it — the window summary,
 * the chart buckets and the per-worker strips — so two figures on one screen cannot disagree.
 */
export interface BusyTally {
  busy: number;
  samples: number;
}

export function emptyTally(): BusyTally {
  return { busy: 0, samples: 0 };
}

/** Adds one frame's io workers to a tally (all of them, or one pid's). Mutates and returns it. */
export function tallyFrame(tally: BusyTally, frame: LiveFrame, pid?: number): BusyTally {
  for (const worker of frame.ioWorkers) {
    if (pid !== undefined && worker.pid !== pid) continue;
    tally.samples++;
    if (worker.busy) tally.busy++;
  }
  return tally;
}

/** Busy share of a tally; null when no io worker was sampled (sync, io_uring, or no frames). */
export function busyShare(tally: BusyTally): number | null {
  return tally.samples > 0 ? tally.busy / tally.samples : null;
}

/** Busy share per io worker pid over frames, sorted by pid. */
export function busyShareByWorker(
  frames: readonly LiveFrame[],
): { pid: number; busyFraction: number; samples: number }[] {
  const byPid = new Map<number, BusyTally>();
  for (const frame of frames) {
    for (const worker of frame.ioWorkers) {
      const tally = byPid.get(worker.pid) ?? emptyTally();
      tally.samples++;
      if (worker.busy) tally.busy++;
      byPid.set(worker.pid, tally);
    }
  }
  return [...byPid.entries()]
    .sort(([a], [b]) => a - b)
    .map(([pid, tally]) => ({ pid, busyFraction: tally.busy / tally.samples, samples: tally.samples }));
}
