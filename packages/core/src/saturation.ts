import type { LiveFrame } from '@aioscope/spec';
import { busyShare, emptyTally, tallyFrame } from './workerBusy.ts';

/** The verdict looks at this much recent time, so it reacts within seconds. */
export const VERDICT_WINDOW_MS = 10_000;
/** Busy fractions above these mark the pool busy / saturated. */
export const BUSY_THRESHOLD = 0.6;
export const SATURATED_THRESHOLD = 0.9;
/** Client backends in DataFileRead count as overflow from this many samples and this share of samples. */
export const MIN_SELF_READ_SAMPLES = 3;
export const SELF_READ_SHARE = 0.05;

export interface WorkerVerdict {
  level: 'idle' | 'keeping up' | 'busy' | 'saturated' | 'not applicable';
  /** One line a viewer reads first. */
  summary: string;
  /** The figures behind it. */
  evidence: string[];
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

/**
 * Do the io workers keep up? Evidence from the last VERDICT_WINDOW_MS of frames: their busy
 * fraction, the backlog of SUBMITTED reads per worker, contention on the submission queue, and
 * client backends running reads themselves (DataFileRead), which is what a backend does when the
 * worker queue is full.
 */
export function workerVerdict(
  frames: readonly LiveFrame[],
  ioMethod: string | null,
  /** Names the span the evidence covers: "last 10 s" live; a past range names its end instead. */
  describeSpan: (seconds: number) => string = (seconds) => `last ${seconds} s`,
): WorkerVerdict {
  if (ioMethod !== 'worker') {
    return { level: 'not applicable', summary: `io_method = ${ioMethod ?? 'unknown'}: no io workers`, evidence: [] };
  }
  const newest = frames[frames.length - 1];
  if (newest === undefined) return { level: 'idle', summary: 'no samples yet', evidence: [] };
  const recent = frames.filter((frame) => frame.t >= newest.t - VERDICT_WINDOW_MS);
  const workerBusy = emptyTally();
  let backlogSum = 0;
  let backlogFrames = 0;
  let queueWaits = 0;
  let selfReads = 0;
  let readsSeen = 0;
  for (const frame of recent) {
    tallyFrame(workerBusy, frame);
    if (frame.inflight !== null) {
      readsSeen += frame.inflight.total.count;
      if (frame.inflight.workerBacklog !== null) {
        backlogSum += frame.inflight.workerBacklog;
        backlogFrames++;
      }
    }
    for (const [key, count] of Object.entries(frame.waits)) {
      if (key.endsWith(':AioWorkerSubmissionQueue')) queueWaits += count;
      if (key === 'client backend:DataFileRead') selfReads += count;
    }
  }
  const workers = newest.ioWorkers.length;
  const busy = busyShare(workerBusy) ?? 0;
  const backlogPerWorker = backlogFrames > 0 && workers > 0 ? backlogSum / backlogFrames / workers : 0;
  const seconds = Math.round((newest.t - (recent[0]?.t ?? newest.t)) / 1000);
  const evidence = [
    `${workers} io workers busy in ${percent(busy)} of samples (${describeSpan(seconds)})`,
    `backlog: ${backlogPerWorker.toFixed(1)} submitted reads per worker on average`,
    `AioWorkerSubmissionQueue waits seen: ${queueWaits}`,
    `client backends reading themselves (DataFileRead): ${selfReads} samples`,
  ];
  if (readsSeen === 0 && busy === 0) return { level: 'idle', summary: 'idle: no reads in flight', evidence };
  // One backend caught in DataFileRead can be a read that never goes through AIO; a steady share cannot.
  const selfReading = selfReads >= MIN_SELF_READ_SAMPLES && selfReads >= recent.length * SELF_READ_SHARE;
  if (busy >= SATURATED_THRESHOLD || selfReading || (busy >= BUSY_THRESHOLD && backlogPerWorker > 1)) {
    return {
      level: 'saturated',
      summary: selfReading
        ? 'saturated: backends read for themselves, a sign the worker queue overflowed'
        : 'saturated: reads queue behind busy workers; more io_workers may help',
      evidence,
    };
  }
  if (busy >= BUSY_THRESHOLD) return { level: 'busy', summary: 'busy, but keeping up: little backlog', evidence };
  return { level: 'keeping up', summary: 'keeping up: workers are idle most of the time', evidence };
}
