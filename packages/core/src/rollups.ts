import type { AioState, IoStatDelta, LiveFrame, RollupPoint } from '@aioscope/spec';
import { AIO_STATES, ROLLUP_BASE_STEP_MS } from '@aioscope/spec';

/**
 * Roll-ups: the long-range form of history. One definition, used by the recorder as frames
 * arrive, by a recording file opened in memory and by tests, so a roll-up read back from the store
 * and one computed from the raw frames of the same second agree exactly.
 */

/** A roll-up under construction: sums, not means, so steps merge without losing exactness. */
export interface RollupAccumulator {
  t: number;
  frames: number;
  inflightFrames: number;
  readsSum: number;
  readsMax: number;
  bytesSum: number;
  bytesMax: number;
  newReads: number;
  newReadBytes: number;
  workerSamples: number;
  workerBusy: number;
  backlogFrames: number;
  backlogSum: number;
  backlogMax: number;
  /**
   * Frames whose reads by state are summed in stateSums: the frames that sampled pg_aios. Apart
   * from inflightFrames because a store's roll-ups written before it kept states have none (0).
   */
  stateFrames: number;
  /** Reads in flight per pg_aios state, summed over stateFrames. */
  stateSums: Record<AioState, number>;
  waitSums: Record<string, number>;
  statReads: number;
  statReadBytes: number;
  sampleMsSum: number;
  sampleMsMax: number;
  skippedTicks: number;
}

function emptyStateSums(): Record<AioState, number> {
  return Object.fromEntries(AIO_STATES.map((state) => [state, 0])) as Record<AioState, number>;
}

export function emptyAccumulator(t: number): RollupAccumulator {
  return {
    t,
    frames: 0,
    inflightFrames: 0,
    readsSum: 0,
    readsMax: 0,
    bytesSum: 0,
    bytesMax: 0,
    newReads: 0,
    newReadBytes: 0,
    workerSamples: 0,
    workerBusy: 0,
    backlogFrames: 0,
    backlogSum: 0,
    backlogMax: 0,
    stateFrames: 0,
    stateSums: emptyStateSums(),
    waitSums: {},
    statReads: 0,
    statReadBytes: 0,
    sampleMsSum: 0,
    sampleMsMax: 0,
    skippedTicks: 0,
  };
}

/** Start of the step a time falls in. */
export function stepStart(t: number, stepMs: number = ROLLUP_BASE_STEP_MS): number {
  return Math.floor(t / stepMs) * stepMs;
}

export function addFrame(acc: RollupAccumulator, frame: LiveFrame): RollupAccumulator {
  acc.frames++;
  acc.sampleMsSum += frame.sampleMs;
  acc.sampleMsMax = Math.max(acc.sampleMsMax, frame.sampleMs);
  acc.skippedTicks += frame.skippedTicks;
  if (frame.inflight !== null) {
    acc.inflightFrames++;
    acc.readsSum += frame.inflight.total.count;
    acc.readsMax = Math.max(acc.readsMax, frame.inflight.total.count);
    acc.bytesSum += frame.inflight.total.bytes;
    acc.bytesMax = Math.max(acc.bytesMax, frame.inflight.total.bytes);
    const backlog = frame.inflight.workerBacklog;
    if (backlog !== null) {
      acc.backlogFrames++;
      acc.backlogSum += backlog;
      acc.backlogMax = Math.max(acc.backlogMax, backlog);
    }
    acc.stateFrames++;
    for (const state of AIO_STATES) acc.stateSums[state] += frame.inflight.byState[state]?.count ?? 0;
  }
  if (frame.newReads !== null) {
    acc.newReads += frame.newReads.count;
    acc.newReadBytes += frame.newReads.bytes;
  }
  for (const worker of frame.ioWorkers) {
    acc.workerSamples++;
    if (worker.busy) acc.workerBusy++;
  }
  for (const [key, count] of Object.entries(frame.waits)) acc.waitSums[key] = (acc.waitSums[key] ?? 0) + count;
  return acc;
}

export function addIoDelta(acc: RollupAccumulator, delta: IoStatDelta): RollupAccumulator {
  // A reset interval has no delta (ioStats.ts): adding its zeros would read as "no reads".
  if (delta.reset) return acc;
  acc.statReads += delta.reads;
  acc.statReadBytes += delta.readBytes;
  return acc;
}

/** Adds b into a (both sums): how a 1 s roll-up becomes a 1 min one. */
export function mergeAccumulators(a: RollupAccumulator, b: RollupAccumulator): RollupAccumulator {
  a.frames += b.frames;
  a.inflightFrames += b.inflightFrames;
  a.readsSum += b.readsSum;
  a.readsMax = Math.max(a.readsMax, b.readsMax);
  a.bytesSum += b.bytesSum;
  a.bytesMax = Math.max(a.bytesMax, b.bytesMax);
  a.newReads += b.newReads;
  a.newReadBytes += b.newReadBytes;
  a.workerSamples += b.workerSamples;
  a.workerBusy += b.workerBusy;
  a.backlogFrames += b.backlogFrames;
  a.backlogSum += b.backlogSum;
  a.backlogMax = Math.max(a.backlogMax, b.backlogMax);
  a.stateFrames += b.stateFrames;
  for (const state of AIO_STATES) a.stateSums[state] += b.stateSums[state];
  for (const [key, sum] of Object.entries(b.waitSums)) a.waitSums[key] = (a.waitSums[key] ?? 0) + sum;
  a.statReads += b.statReads;
  a.statReadBytes += b.statReadBytes;
  a.sampleMsSum += b.sampleMsSum;
  a.sampleMsMax = Math.max(a.sampleMsMax, b.sampleMsMax);
  a.skippedTicks += b.skippedTicks;
  return a;
}

/**
 * 1 s roll-ups (oldest first) merged into steps of stepMs that end with the newest one: the step
 * boundaries follow the newest second, so the newest step is the last stepMs sampled (less only
 * in a target's first stepMs, or where seconds are missing). New accumulators: the seconds given
 * are not changed. Steps no second fell in are left out (a gap). Each step's t is its start.
 */
export function trailingSteps(seconds: readonly RollupAccumulator[], stepMs: number): RollupAccumulator[] {
  const newest = seconds.at(-1);
  if (newest === undefined) return [];
  // The step after the newest second starts here; step k (from the newest, 0-based) ends k steps earlier.
  const end = newest.t + ROLLUP_BASE_STEP_MS;
  const steps: RollupAccumulator[] = [];
  for (const second of seconds) {
    const start = end - (Math.floor((end - 1 - second.t) / stepMs) + 1) * stepMs;
    // Oldest first: a second's step is the last one begun, or a new one after it.
    let step = steps.at(-1);
    if (step?.t !== start) {
      step = emptyAccumulator(start);
      steps.push(step);
    }
    mergeAccumulators(step, second);
  }
  return steps;
}

/** Each state's mean over the frames, states no read was in left out. */
function meansByState(sums: Record<AioState, number>, frames: number): Partial<Record<AioState, number>> {
  const means: Partial<Record<AioState, number>> = {};
  for (const state of AIO_STATES) if (sums[state] > 0) means[state] = sums[state] / frames;
  return means;
}

/** The published form of an accumulator. Means are over the step's frames. */
export function toRollupPoint(acc: RollupAccumulator): RollupPoint {
  const per = (sum: number, n: number): number => (n > 0 ? sum / n : 0);
  const waits: Record<string, number> = {};
  for (const [key, sum] of Object.entries(acc.waitSums)) waits[key] = per(sum, acc.frames);
  return {
    t: acc.t,
    frames: acc.frames,
    readsInFlight: { mean: per(acc.readsSum, acc.inflightFrames), max: acc.readsMax },
    bytesInFlight: { mean: per(acc.bytesSum, acc.inflightFrames), max: acc.bytesMax },
    inflightKnown: acc.inflightFrames > 0,
    newReads: acc.newReads,
    newReadBytes: acc.newReadBytes,
    workerSamples: acc.workerSamples,
    workerBusy: acc.workerBusy,
    workerBacklog: acc.backlogFrames > 0 ? { mean: acc.backlogSum / acc.backlogFrames, max: acc.backlogMax } : null,
    readsByState: acc.stateFrames > 0 ? meansByState(acc.stateSums, acc.stateFrames) : null,
    waits,
    statReads: acc.statReads,
    statReadBytes: acc.statReadBytes,
    sampleMs: { mean: per(acc.sampleMsSum, acc.frames), max: acc.sampleMsMax },
    skippedTicks: acc.skippedTicks,
  };
}

/**
 * Roll-ups of time-ordered frames and deltas over [from, to) in steps of stepMs. Steps with no
 * frame and no pg_stat_io delta are left out: the chart draws the gap.
 */
export function rollup(
  frames: readonly LiveFrame[],
  ioDeltas: readonly IoStatDelta[],
  from: number,
  to: number,
  stepMs: number,
): RollupPoint[] {
  const steps = new Map<number, RollupAccumulator>();
  const stepOf = (t: number): RollupAccumulator => {
    const start = stepStart(t, stepMs);
    let acc = steps.get(start);
    if (acc === undefined) {
      acc = emptyAccumulator(start);
      steps.set(start, acc);
    }
    return acc;
  };
  for (const frame of frames) if (frame.t >= from && frame.t < to) addFrame(stepOf(frame.t), frame);
  for (const delta of ioDeltas) if (delta.t >= from && delta.t < to) addIoDelta(stepOf(delta.t), delta);
  return [...steps.values()]
    .filter((acc) => acc.frames > 0 || acc.statReads > 0)
    .sort((a, b) => a.t - b.t)
    .map(toRollupPoint);
}

/** The step a roll-up query uses: at least what was asked, a whole number of seconds, few enough points. */
export function rollupStepFor(
  from: number,
  to: number,
  requestedStepMs: number | undefined,
  maxPoints: number,
): number {
  const base = ROLLUP_BASE_STEP_MS;
  const wanted = Math.max(base, requestedStepMs ?? base, Math.ceil((to - from) / maxPoints));
  return Math.ceil(wanted / base) * base;
}
