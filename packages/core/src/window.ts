import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import { busyShare, busyShareByWorker, emptyTally, tallyFrame } from './workerBusy.ts';

/** Figures over a window of frames, as the panels show them. Pure, shared by the UI and tests. */
export interface LiveWindowSummary {
  frames: number;
  /** Mean size of the distinct reads first seen in the window (pg_aios length), bytes; null if none. */
  liveBytesPerRead: number | null;
  distinctReads: number;
  /** Mean reads in flight per sample. */
  meanInflightReads: number | null;
  /** Share of (io worker x sample) pairs in which the worker was busy; null without io workers. */
  workerBusyFraction: number | null;
  perWorkerBusyFraction: { pid: number; busyFraction: number; samples: number }[];
}

export function summarizeLiveWindow(frames: readonly LiveFrame[]): LiveWindowSummary {
  let readCount = 0;
  let readBytes = 0;
  let inflightSum = 0;
  let inflightFrames = 0;
  const workers = emptyTally();
  for (const frame of frames) {
    if (frame.newReads !== null) {
      readCount += frame.newReads.count;
      readBytes += frame.newReads.bytes;
    }
    if (frame.inflight !== null) {
      inflightSum += frame.inflight.total.count;
      inflightFrames += 1;
    }
    tallyFrame(workers, frame);
  }
  return {
    frames: frames.length,
    liveBytesPerRead: readCount > 0 ? readBytes / readCount : null,
    distinctReads: readCount,
    meanInflightReads: inflightFrames > 0 ? inflightSum / inflightFrames : null,
    workerBusyFraction: busyShare(workers),
    perWorkerBusyFraction: busyShareByWorker(frames),
  };
}

/** Exact bytes per read from pg_stat_io over the deltas given (reset intervals carry nothing). */
export function exactBytesPerRead(deltas: readonly IoStatDelta[]): {
  bytesPerRead: number | null;
  reads: number;
  readBytes: number;
} {
  let reads = 0;
  let readBytes = 0;
  for (const delta of deltas) {
    if (delta.reset) continue;
    reads += delta.reads;
    readBytes += delta.readBytes;
  }
  return { bytesPerRead: reads > 0 ? readBytes / reads : null, reads, readBytes };
}
