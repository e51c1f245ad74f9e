import type { IoStatDelta, LiveFrame } from '@aioscope/spec';
import { KeptBuckets } from './keptBuckets.ts';
import { busyShare, emptyTally, type BusyTally } from './workerBusy.ts';

/** Figures over a window of frames, as the panels show them. Pure, shared by the UI and tests. */
export interface LiveWindowSummary {
  frames: number;
  /** Mean size of the distinct reads first seen in the window (pg_aios length), bytes; null if none. */
  liveBytesPerRead: number | null;
  distinctReads: number;
  /** The distinct reads by size in blocks (pg_aios handle_data_len), each counted in the frame that first saw it. */
  readsByBlocks: ReadonlyMap<number, number>;
  /** Mean reads in flight per sample. */
  meanInflightReads: number | null;
  /** Most reads in flight in one sample; null without a sample of pg_aios. */
  peakInflightReads: number | null;
  /** Samples that read pg_aios (the mean's and the peak's count). */
  inflightSamples: number;
  /** Share of (io worker x sample) pairs in which the worker was busy; null without io workers. */
  workerBusyFraction: number | null;
  perWorkerBusyFraction: { pid: number; busyFraction: number; samples: number }[];
}

/** Sums over some frames that add up exactly: a window's tally is the sum of its buckets' tallies. */
interface WindowTally {
  frames: number;
  readCount: number;
  readBytes: number;
  readsByBlocks: Map<number, number>;
  inflightSum: number;
  inflightFrames: number;
  inflightPeak: number;
  workers: BusyTally;
  byWorker: Map<number, BusyTally>;
}

function tallyOf(frames: readonly LiveFrame[]): WindowTally {
  const tally: WindowTally = {
    frames: frames.length,
    readCount: 0,
    readBytes: 0,
    readsByBlocks: new Map(),
    inflightSum: 0,
    inflightFrames: 0,
    inflightPeak: 0,
    workers: emptyTally(),
    byWorker: new Map(),
  };
  for (const frame of frames) {
    if (frame.newReads !== null) {
      tally.readCount += frame.newReads.count;
      tally.readBytes += frame.newReads.bytes;
      for (const [blocks, count] of Object.entries(frame.newReads.blocksHistogram)) {
        tally.readsByBlocks.set(Number(blocks), (tally.readsByBlocks.get(Number(blocks)) ?? 0) + count);
      }
    }
    if (frame.inflight !== null) {
      tally.inflightSum += frame.inflight.total.count;
      tally.inflightFrames += 1;
      tally.inflightPeak = Math.max(tally.inflightPeak, frame.inflight.total.count);
    }
    for (const worker of frame.ioWorkers) {
      const own = tally.byWorker.get(worker.pid) ?? emptyTally();
      own.samples++;
      tally.workers.samples++;
      if (worker.busy) {
        own.busy++;
        tally.workers.busy++;
      }
      tally.byWorker.set(worker.pid, own);
    }
  }
  return tally;
}

function summaryOf(tallies: readonly WindowTally[]): LiveWindowSummary {
  let frames = 0;
  let readCount = 0;
  let readBytes = 0;
  let inflightSum = 0;
  let inflightFrames = 0;
  let inflightPeak = 0;
  const readsByBlocks = new Map<number, number>();
  const workers = emptyTally();
  const byWorker = new Map<number, BusyTally>();
  for (const tally of tallies) {
    frames += tally.frames;
    readCount += tally.readCount;
    readBytes += tally.readBytes;
    for (const [blocks, count] of tally.readsByBlocks)
      readsByBlocks.set(blocks, (readsByBlocks.get(blocks) ?? 0) + count);
    inflightSum += tally.inflightSum;
    inflightFrames += tally.inflightFrames;
    inflightPeak = Math.max(inflightPeak, tally.inflightPeak);
    workers.busy += tally.workers.busy;
    workers.samples += tally.workers.samples;
    for (const [pid, own] of tally.byWorker) {
      const sum = byWorker.get(pid) ?? emptyTally();
      sum.busy += own.busy;
      sum.samples += own.samples;
      byWorker.set(pid, sum);
    }
  }
  return {
    frames,
    liveBytesPerRead: readCount > 0 ? readBytes / readCount : null,
    distinctReads: readCount,
    readsByBlocks,
    meanInflightReads: inflightFrames > 0 ? inflightSum / inflightFrames : null,
    peakInflightReads: inflightFrames > 0 ? inflightPeak : null,
    inflightSamples: inflightFrames,
    workerBusyFraction: busyShare(workers),
    perWorkerBusyFraction: [...byWorker.entries()]
      .sort(([a], [b]) => a - b)
      .map(([pid, tally]) => ({ pid, busyFraction: tally.busy / tally.samples, samples: tally.samples })),
  };
}

export function summarizeLiveWindow(frames: readonly LiveFrame[]): LiveWindowSummary {
  return summaryOf([tallyOf(frames)]);
}

/**
 * summarizeLiveWindow for a window that moves: each bucket's sums are kept (KeptBuckets) and the
 * summary adds up one tally per bucket, so a new bucket costs its own frames, not the window's.
 * The same summary object comes back while no bucket changed.
 */
export class WindowSummarizer {
  private readonly buckets = new KeptBuckets<LiveFrame, WindowTally>(tallyOf);
  private last: { tallies: readonly WindowTally[]; summary: LiveWindowSummary } | null = null;

  /** The summary of exactly `frames` (time-ordered); `bucketMs` only decides what is kept. */
  summarize(frames: readonly LiveFrame[], bucketMs: number): LiveWindowSummary {
    const first = frames[0];
    const newest = frames[frames.length - 1];
    if (first === undefined || newest === undefined) return summarizeLiveWindow(frames);
    const end = (Math.floor(newest.t / bucketMs) + 1) * bucketMs;
    const tallies = this.buckets.values(frames, first.t, end, bucketMs);
    if (this.last?.tallies !== tallies) this.last = { tallies, summary: summaryOf(tallies) };
    return this.last.summary;
  }
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
