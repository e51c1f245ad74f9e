import type { IoStatDelta, LiveFrame, RollupPoint } from '@aioscope/spec';
import { stateGroups, type StateGroup } from './ioMethod.ts';
import { exactBytesPerRead } from './window.ts';
import { busyShare, emptyTally, tallyFrame } from './workerBusy.ts';

/**
 * What a chart's series are, declared once: where each number comes from in a bucket of live
 * frames (live view, a recorded range of 15 minutes or less) and in a roll-up point (a long
 * range). The two ways agree on the same samples (chartSeries.test.ts), so a series reads the same
 * whichever range shows it. A new series is one entry here plus the panel that draws it.
 */

/** Per step: the mean of the samples, or the largest sample. A ratio (bytes per read, a share) has only its mean. */
export type SeriesStat = 'mean' | 'max';

/** What the y axis counts; the web picks a formatter and tick scale per unit. */
export type SeriesUnit = 'reads' | 'bytes' | 'share' | 'processes';

/** The samples of one bucket: frames and the pg_stat_io deltas stamped in it. */
export interface SeriesBucket {
  frames: readonly LiveFrame[];
  deltas: readonly IoStatDelta[];
}

export interface SeriesDescription {
  key: string;
  /** Legend text where the chart shows the series alone (the live charts). */
  label: string;
  unit: SeriesUnit;
  /** The chart colour: var(--series-<slot>). A `max` line takes MAX_COLOR_SLOT instead. */
  colorSlot: number;
  stats: readonly SeriesStat[];
  /** The value over a bucket; null when the bucket holds no sample of this series (a gap, never a zero). */
  ofBucket: (bucket: SeriesBucket, stat: SeriesStat) => number | null;
  /** The same value from a roll-up of the same samples. */
  ofRollup: (point: RollupPoint, stat: SeriesStat) => number | null;
}

/** Colour of every `max per step` line, so max and mean read apart on any chart. */
export const MAX_COLOR_SLOT = 4;

/** Mean or max over the frames that sampled pg_aios (frames without it know nothing, not zero). */
function ofInflight(
  frames: readonly LiveFrame[],
  stat: SeriesStat,
  value: (frame: LiveFrame) => number | null,
): number | null {
  let sum = 0;
  let max = 0;
  let samples = 0;
  for (const frame of frames) {
    const sample = value(frame);
    if (sample === null) continue;
    samples++;
    sum += sample;
    max = Math.max(max, sample);
  }
  if (samples === 0) return null;
  return stat === 'max' ? max : sum / samples;
}

const ratio = (numerator: number, denominator: number): number | null =>
  denominator > 0 ? numerator / denominator : null;

const readsInFlight: SeriesDescription = {
  key: 'readsInFlight',
  label: 'reads in flight',
  unit: 'reads',
  colorSlot: 1,
  stats: ['max', 'mean'],
  ofBucket: ({ frames }, stat) => ofInflight(frames, stat, (frame) => frame.inflight?.total.count ?? null),
  ofRollup: (point, stat) => (point.inflightKnown ? point.readsInFlight[stat] : null),
};

const bytesInFlight: SeriesDescription = {
  key: 'bytesInFlight',
  label: 'bytes in flight',
  unit: 'bytes',
  colorSlot: 1,
  stats: ['max', 'mean'],
  ofBucket: ({ frames }, stat) => ofInflight(frames, stat, (frame) => frame.inflight?.total.bytes ?? null),
  ofRollup: (point, stat) => (point.inflightKnown ? point.bytesInFlight[stat] : null),
};

const liveBytesPerRead: SeriesDescription = {
  key: 'liveBytesPerRead',
  label: 'live: mean pg_aios length of new reads',
  unit: 'bytes',
  colorSlot: 1,
  stats: ['mean'],
  ofBucket: ({ frames }) => {
    let reads = 0;
    let bytes = 0;
    for (const frame of frames) {
      reads += frame.newReads?.count ?? 0;
      bytes += frame.newReads?.bytes ?? 0;
    }
    return ratio(bytes, reads);
  },
  ofRollup: (point) => ratio(point.newReadBytes, point.newReads),
};

const exactBytesPerReadSeries: SeriesDescription = {
  key: 'exactBytesPerRead',
  label: 'exact: pg_stat_io read_bytes / reads',
  unit: 'bytes',
  colorSlot: 2,
  stats: ['mean'],
  // A reset interval is left out (window.ts): its zeros are not "no reads".
  ofBucket: ({ deltas }) => exactBytesPerRead(deltas).bytesPerRead,
  ofRollup: (point) => ratio(point.statReadBytes, point.statReads),
};

/** workerBusy.ts's definition: of all (io worker × sample) pairs, the share not idle. */
const workerBusy: SeriesDescription = {
  key: 'workerBusy',
  label: 'io workers busy',
  unit: 'share',
  colorSlot: 3,
  stats: ['mean'],
  ofBucket: ({ frames }) => busyShare(frames.reduce((tally, frame) => tallyFrame(tally, frame), emptyTally())),
  ofRollup: (point) => ratio(point.workerBusy, point.workerSamples),
};

/**
 * Reads in flight in one group of pg_aios states (ioMethod.ts stateGroups), the mean per step over
 * the samples that read pg_aios: the stacked "by state" chart. Its legend is the group's label for
 * the server's io_method (SUBMITTED means another place under each); this label is the neutral one.
 */
function readsInStates(key: string, group: StateGroup, colorSlot: number): SeriesDescription {
  const { states } = group;
  return {
    key,
    label: `reads ${group.label}`,
    unit: 'reads',
    colorSlot,
    stats: ['mean'],
    ofBucket: ({ frames }, stat) =>
      ofInflight(frames, stat, (frame) => {
        if (frame.inflight === null) return null;
        let count = 0;
        for (const state of states) count += frame.inflight.byState[state]?.count ?? 0;
        return count;
      }),
    ofRollup: ({ readsByState }) => {
      if (readsByState === null) return null;
      let mean = 0;
      for (const state of states) mean += readsByState[state] ?? 0;
      return mean;
    },
  };
}

const [submittedGroup, completedIoGroup, completedGroup, preparingGroup] = stateGroups(null) as [
  StateGroup,
  StateGroup,
  StateGroup,
  StateGroup,
];

/** SUBMITTED reads io workers must run, over the samples that could tell (io_method = worker). */
const workerBacklog: SeriesDescription = {
  key: 'workerBacklog',
  label: 'submitted reads (queued or executing)',
  unit: 'reads',
  colorSlot: 1,
  stats: ['max', 'mean'],
  ofBucket: ({ frames }, stat) => ofInflight(frames, stat, (frame) => frame.inflight?.workerBacklog ?? null),
  ofRollup: (point, stat) => point.workerBacklog?.[stat] ?? null,
};

/** io workers in pg_stat_activity, mean per sample: the pool size (19 grows and shrinks it). */
const ioWorkers: SeriesDescription = {
  key: 'ioWorkers',
  label: 'io workers',
  unit: 'processes',
  colorSlot: 4,
  stats: ['mean'],
  ofBucket: ({ frames }) => {
    let workers = 0;
    for (const frame of frames) workers += frame.ioWorkers.length;
    return ratio(workers, frames.length);
  },
  ofRollup: (point) => ratio(point.workerSamples, point.frames),
};

/** Every series a time chart draws from live frames or roll-ups. */
export const SERIES = {
  readsInFlight,
  bytesInFlight,
  readsSubmitted: readsInStates('readsSubmitted', submittedGroup, 1),
  readsCompletedIo: readsInStates('readsCompletedIo', completedIoGroup, 2),
  readsCompleted: readsInStates('readsCompleted', completedGroup, 3),
  readsPreparing: readsInStates('readsPreparing', preparingGroup, 4),
  liveBytesPerRead,
  exactBytesPerRead: exactBytesPerReadSeries,
  workerBusy,
  workerBacklog,
  ioWorkers,
} as const satisfies Record<string, SeriesDescription>;

export type SeriesKey = keyof typeof SERIES;

/** One line of a chart: a series at one of its stats. */
export interface SeriesLine {
  series: SeriesDescription;
  stat: SeriesStat;
}

/** The row key a line's values go under (unique per series and stat). */
export function lineKey({ series, stat }: SeriesLine): string {
  return `${series.key}:${stat}`;
}

/** The by-state series in stateGroups' order, keyed by their group. */
export const STATE_SERIES: Record<StateGroup['key'], SeriesDescription> = {
  submitted: SERIES.readsSubmitted,
  completedIo: SERIES.readsCompletedIo,
  completed: SERIES.readsCompleted,
  preparing: SERIES.readsPreparing,
};

/** The colour slot a line is drawn in. */
export function lineColorSlot({ series, stat }: SeriesLine): number {
  return stat === 'max' ? MAX_COLOR_SLOT : series.colorSlot;
}

/** A bucket's values of some lines, keyed by lineKey. */
export function bucketValues(lines: readonly SeriesLine[], bucket: SeriesBucket): Record<string, number | null> {
  return Object.fromEntries(lines.map((line) => [lineKey(line), line.series.ofBucket(bucket, line.stat)]));
}

/** A roll-up point's values of some lines, keyed by lineKey. */
export function rollupValues(lines: readonly SeriesLine[], point: RollupPoint): Record<string, number | null> {
  return Object.fromEntries(lines.map((line) => [lineKey(line), line.series.ofRollup(point, line.stat)]));
}
