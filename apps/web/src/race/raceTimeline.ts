import { RACE_MIN_FRAMES, type LabVariant, type Race, type RaceLane } from '@aioscope/spec';

/**
 * A race as the view replays it: lanes started together (each lane's time zero is its own first
 * sample, taken just before its scan was sent), a lane's figures at any instant of the replay,
 * who won and by how much, and the one sentence that says what to watch. Pure, so it is tested
 * with recorded frames and the component only draws.
 */

/** A lane's length on the server's clock: first sample (before the scan) to last (after it returned). */
export function laneDurationMs(lane: RaceLane): number {
  return Math.max(0, lane.endT - lane.startT);
}

/** The replay lasts until the slowest lane is done. */
export function raceDurationMs(lanes: readonly RaceLane[]): number {
  return Math.max(0, ...lanes.map(laneDurationMs));
}

/** Index of the last frame at or before `atMs` into the lane (frames are in time order); -1 before the first. */
export function frameIndexAt(lane: RaceLane, atMs: number): number {
  const at = lane.startT + atMs;
  let low = 0;
  let high = lane.frames.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((lane.frames[middle]?.t ?? Infinity) <= at) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

export interface LaneMoment {
  elapsedMs: number;
  finished: boolean;
  /** Share of the table read, 0..1: the scan map's progress; 1 once the scan returned. */
  progress: number;
  readsInFlight: number;
  /** Mean size of the reads seen so far, bytes; the run's exact figure once it finished. */
  bytesPerRead: number | null;
  /** Mean blocks per read seen so far; the run's exact figure once it finished. */
  blocksPerRead: number | null;
}

/** What a lane shows at `atMs` into the race. */
export function laneAt(lane: RaceLane, atMs: number): LaneMoment {
  const duration = laneDurationMs(lane);
  const finished = atMs >= duration;
  const index = frameIndexAt(lane, Math.min(atMs, duration));
  let reads = 0;
  let bytes = 0;
  let blocks = 0;
  let progress = 0;
  for (let i = 0; i <= index; i++) {
    const frame = lane.frames[i];
    if (frame === undefined) continue;
    reads += frame.newReads?.count ?? 0;
    bytes += frame.newReads?.bytes ?? 0;
    for (const [size, count] of Object.entries(frame.newReads?.blocksHistogram ?? {})) blocks += Number(size) * count;
    progress = Math.max(progress, frame.scans?.[0]?.progress ?? 0);
  }
  const frame = index >= 0 ? lane.frames[index] : undefined;
  const exact = finished && lane.run !== null;
  return {
    elapsedMs: Math.min(atMs, duration),
    finished,
    progress: exact ? 1 : progress,
    readsInFlight: finished ? 0 : (frame?.inflight?.total.count ?? 0),
    bytesPerRead:
      exact && typeof lane.run?.bytesPerRead === 'number' ? lane.run.bytesPerRead : reads > 0 ? bytes / reads : null,
    blocksPerRead: exact && lane.blocksPerRead !== null ? lane.blocksPerRead : reads > 0 ? blocks / reads : null,
  };
}

/** Offsets into the race where some lane has a frame: what "step" moves between. */
export function stepTimes(lanes: readonly RaceLane[]): number[] {
  const times = new Set<number>();
  for (const lane of lanes) for (const frame of lane.frames) times.add(Math.round((frame.t - lane.startT) * 10) / 10);
  return [...times].sort((a, b) => a - b);
}

export interface RaceOutcome {
  winner: string;
  loser: string;
  /** How much sooner the winner's scan finished (EXPLAIN execution time), ms. */
  byMs: number;
  /** Loser's time / winner's time. */
  ratio: number;
}

/** Who finished first, by the lab's own figure (EXPLAIN ANALYZE execution time); null unless every lane finished. */
export function raceOutcome(lanes: readonly RaceLane[]): RaceOutcome | null {
  const timed = lanes.flatMap((lane) => (lane.run === null ? [] : [{ name: lane.variant, ms: lane.run.executionMs }]));
  if (timed.length < 2 || timed.length !== lanes.length) return null;
  const sorted = [...timed].sort((a, b) => a.ms - b.ms);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined || first.ms <= 0) return null;
  return { winner: first.name, loser: last.name, byMs: last.ms - first.ms, ratio: last.ms / first.ms };
}

/** Why the race cannot be shown as a result, in words; null when it can. */
export function raceProblem(race: Race): string | null {
  const { experiment, lanes } = race;
  if (experiment.status === 'failed') return `The race failed: ${experiment.error ?? 'no reason was given'}.`;
  if (experiment.status === 'cancelled') {
    const unfinished = lanes.filter((lane) => lane.run === null).map((lane) => lane.variant);
    return `The race was cancelled (${experiment.cancelReason ?? 'no reason given'})${
      unfinished.length > 0 ? `; ${unfinished.join(', ')} did not finish` : ''
    }.`;
  }
  if (experiment.status === 'running') return null;
  const names = experiment.definition.variants.map((variant) => variant.name);
  const missing = names.filter((name) => !lanes.some((lane) => lane.variant === name));
  if (missing.length === names.length)
    return 'This experiment was not captured as a race (captures are kept in memory for the newest races): run it as a race to replay it.';
  if (missing.length > 0) return `No capture of ${missing.join(', ')}: the race cannot be shown.`;
  const failed = lanes.find((lane) => lane.frames.length === 0 || lane.captureError !== null);
  if (failed !== undefined)
    return `The capture of ${failed.variant} is incomplete: ${failed.captureError ?? 'no frames'}.`;
  return null;
}

/** A lane too short to watch (under RACE_MIN_FRAMES frames), with what to do about it; null when all can be replayed. */
export function tooShort(lanes: readonly RaceLane[]): string | null {
  const short = lanes.filter((lane) => lane.frames.length < RACE_MIN_FRAMES);
  if (short.length === 0) return null;
  const list = short.map((lane) => `${lane.variant} (${lane.frames.length} frames)`).join(', ');
  return `Too short to replay: ${list} — under ${RACE_MIN_FRAMES} frames at 100 Hz. Watch at 1/10× or race a larger table.`;
}

/** The one thing to watch, from the setting the lanes differ in. */
export function raceCaption(variants: readonly LabVariant[]): string {
  const [a, b] = variants;
  if (a === undefined || b === undefined) return 'Watch the lanes: same scan, different settings.';
  const icl = [a.session.io_combine_limit, b.session.io_combine_limit];
  if (icl[0] !== undefined && icl[1] !== undefined && icl[0] !== icl[1]) {
    const [small, large] = icl[0] < icl[1] ? [icl[0], icl[1]] : [icl[1], icl[0]];
    const ratio = Math.round(large / small);
    return `${large} blocks per read: one read where the other lane needs ${ratio}. Watch bytes per read, not just the finish.`;
  }
  const eic = [a.session.effective_io_concurrency, b.session.effective_io_concurrency];
  if (eic[0] !== undefined && eic[1] !== undefined && eic[0] !== eic[1])
    return `effective_io_concurrency ${eic[0]} vs ${eic[1]}: watch reads in flight — more reads queued at once, not bigger ones.`;
  if (a.server.io_method !== b.server.io_method)
    return `io_method ${a.server.io_method ?? 'default'} vs ${b.server.io_method ?? 'default'}: the same reads, issued by the backend itself or handed to io workers.`;
  if (a.server.io_workers !== b.server.io_workers)
    return `io_workers ${a.server.io_workers ?? 'default'} vs ${b.server.io_workers ?? 'default'}: watch reads in flight — more workers can run more reads at once.`;
  return 'Watch the lanes: same scan, different settings.';
}
