import { RACE_MAX_KEPT, RACE_MIN_FRAMES, type LabVariant, type Race, type RaceLane } from '@aioscope/spec';
import { formatNumber } from '../format.ts';

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
  /**
   * How much sooner the winner's lane ended, ms of the lanes' own "elapsed" (server clock, the
   * sample before the scan was sent to the one after it returned): the figure the lanes show, so
   * the sentence and the lanes add up.
   */
  byMs: number;
  /** Loser's elapsed / winner's elapsed. */
  ratio: number;
  /** The same two runs as EXPLAIN ANALYZE timed them (execution only: no sending, no planning), ms. */
  explainMs: { winner: number; loser: number };
  /** The round each lane replays: the run nearest its variant's median, so often not the same round. */
  rounds: { winner: number; loser: number };
}

/**
 * Who finished first and by how much, on the lanes' clock (what the replay shows); null unless
 * every lane finished. EXPLAIN's execution time of the same runs comes with it, so the view can
 * say both figures and which is which: the elapsed time also counts sending and planning the scan.
 */
export function raceOutcome(lanes: readonly RaceLane[]): RaceOutcome | null {
  const timed = lanes.flatMap((lane) => (lane.run === null ? [] : [{ lane, run: lane.run, ms: laneDurationMs(lane) }]));
  if (timed.length < 2 || timed.length !== lanes.length) return null;
  const sorted = [...timed].sort((a, b) => a.ms - b.ms);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined || first.ms <= 0) return null;
  return {
    winner: first.lane.variant,
    loser: last.lane.variant,
    // From the whole milliseconds the lanes print, so the difference is the one a reader computes.
    byMs: Math.round(last.ms) - Math.round(first.ms),
    ratio: last.ms / first.ms,
    explainMs: { winner: first.run.executionMs, loser: last.run.executionMs },
    rounds: { winner: first.lane.round, loser: last.lane.round },
  };
}

/**
 * The outcome in words: first the lanes' own figure (elapsed, what the replay showed), then
 * EXPLAIN's for the same runs, named as such, so two different numbers never read as one.
 */
export function outcomeSentences(outcome: RaceOutcome, mediansBelow = true): { result: string; explain: string } {
  const { winner, loser, explainMs, rounds } = outcome;
  return {
    result: `${winner} finished first, ${formatNumber(outcome.byMs, 0)} ms sooner than ${loser} (${outcome.ratio.toFixed(2)}× faster) in elapsed time, as the lanes show it.`,
    explain: `EXPLAIN's execution time of the same runs (${winner} round ${rounds.winner}, ${loser} round ${rounds.loser}): ${formatNumber(Math.round(explainMs.winner), 0)} vs ${formatNumber(Math.round(explainMs.loser), 0)} ms, ${formatNumber(Math.round(explainMs.loser) - Math.round(explainMs.winner), 0)} ms apart; it leaves out sending and planning the scan.${mediansBelow ? ' The medians of every round are below.' : ''}`,
  };
}

/** Where a finished lane placed, in the lanes' own elapsed ms: "finished first", "+553 ms". */
export function lanePlacing(lanes: readonly RaceLane[], variant: string): string | null {
  const outcome = raceOutcome(lanes);
  if (outcome === null) return null;
  if (variant === outcome.winner) return 'finished first';
  const lane = lanes.find((candidate) => candidate.variant === variant);
  const winner = lanes.find((candidate) => candidate.variant === outcome.winner);
  if (lane === undefined || winner === undefined) return null;
  return `+${formatNumber(Math.round(laneDurationMs(lane)) - Math.round(laneDurationMs(winner)), 0)} ms`;
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
  if (missing.length === names.length) {
    const kept = `this server keeps the frames of its newest ${RACE_MAX_KEPT} races, in memory`;
    return race.captures === 'expired'
      ? `The frames of race ${experiment.id} are no longer kept: newer races replaced them (${kept}). Its figures are below; run it as a race again to replay it.`
      : `No frames of ${experiment.id} on this server: it ran as an experiment, not a race, or aioscope restarted since (${kept}). Its figures are below; run it as a race to replay it.`;
  }
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
