import type { HistoryRollups, TargetSummary } from '@aioscope/spec';
import { formatDuration } from '../format.ts';

/**
 * A range longer than 15 minutes as the panels draw it: the server's 1 s roll-ups (count, sums,
 * mean and max of each second's samples) merged to one step per chart point. What the panels say
 * of it is here, so each says the same of its source and step.
 */
export interface RollupRange {
  rollups: HistoryRollups;
  target: TargetSummary | undefined;
}

/** The figures of a whole range, from the sums its points carry. null: nothing in the range told. */
export interface RollupTotals {
  /** Largest reads in flight of any one sample. */
  peakReads: number | null;
  /** Mean reads in flight per sample, each step weighted by its samples. */
  meanReads: number | null;
  /** Distinct reads first seen (pg_aios), and their mean bytes. */
  newReads: number;
  liveBytesPerRead: number | null;
  /** pg_stat_io reads counted in the range, and Δread_bytes / Δreads over them. */
  statReads: number;
  exactBytesPerRead: number | null;
  /** (io worker × sample) pairs, and the share of them not idle. */
  workerSamples: number;
  workerBusyShare: number | null;
}

const ratio = (numerator: number, denominator: number): number | null =>
  denominator > 0 ? numerator / denominator : null;

export function rollupTotals({ points }: HistoryRollups): RollupTotals {
  let peak: number | null = null;
  let readsWeighted = 0;
  let inflightFrames = 0;
  let newReads = 0;
  let newReadBytes = 0;
  let statReads = 0;
  let statReadBytes = 0;
  let workerSamples = 0;
  let workerBusy = 0;
  for (const point of points) {
    if (point.inflightKnown) {
      peak = Math.max(peak ?? 0, point.readsInFlight.max);
      readsWeighted += point.readsInFlight.mean * point.frames;
      inflightFrames += point.frames;
    }
    newReads += point.newReads;
    newReadBytes += point.newReadBytes;
    statReads += point.statReads;
    statReadBytes += point.statReadBytes;
    workerSamples += point.workerSamples;
    workerBusy += point.workerBusy;
  }
  return {
    peakReads: peak,
    meanReads: ratio(readsWeighted, inflightFrames),
    newReads,
    liveBytesPerRead: ratio(newReadBytes, newReads),
    statReads,
    exactBytesPerRead: ratio(statReadBytes, statReads),
    workerSamples,
    workerBusyShare: ratio(workerBusy, workerSamples),
  };
}

/** "12 s": one chart point's step. */
export function stepText(rollups: HistoryRollups): string {
  return formatDuration(rollups.stepMs, 'span');
}

/**
 * The source line's roll-up part, honest about what a point is: "1 s roll-ups of pg_aios at 20 Hz,
 * merged per 12 s (mean and max of the samples in each step)".
 */
export function rollupSource(what: string, rateHz: number, rollups: HistoryRollups, stats: string): string {
  return `1 s roll-ups of ${what} at ${rateHz} Hz, merged per ${stepText(rollups)} (${stats} of the samples in each step)`;
}
