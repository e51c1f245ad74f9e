import { describe, expect, it } from 'vitest';
import type { LiveFrame, RaceLane } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { formatNumber } from '../format.ts';
import { buildStories } from '../present/stories.ts';
import {
  frameIndexAt,
  laneAt,
  laneDurationMs,
  lanePlacing,
  outcomeSentences,
  raceCaption,
  raceDurationMs,
  raceOutcome,
  raceProblem,
  stepTimes,
  tooShort,
} from './raceTimeline.ts';
import { nextStep } from './useReplay.ts';
import { labRun as run, raceLane as lane, raceOf as race } from '../testing/raceFixtures.ts';

/** Frames recorded from a real PostgreSQL 18 (io_method worker, 16-block reads). */
function recordedFrames(): LiveFrame[] {
  const server = recordedServers().find((candidate) => candidate.name === 'pg18.4-embedded-worker');
  if (server === undefined) throw new Error('recording missing');
  return buildPayloads(server).frames;
}

describe('race timeline', () => {
  const frames = recordedFrames();
  // A second lane: the same recording shifted to another server time, as a later run would be.
  const later = frames.slice(0, 20).map((frame) => ({ ...frame, t: frame.t + 60_000 }));
  const a = lane('icl=16', frames, run('icl=16', 300));
  const b = lane('icl=1', later, run('icl=1', 420, 8192));

  it('starts lanes together: each lane’s time zero is its own first sample', () => {
    expect(frameIndexAt(a, 0)).toBe(0);
    expect(frameIndexAt(b, 0)).toBe(0);
    expect(frameIndexAt(a, -1)).toBe(-1);
    const offset = (frames[5]?.t ?? 0) - (frames[0]?.t ?? 0);
    expect(frameIndexAt(a, offset)).toBe(5);
    expect(raceDurationMs([a, b])).toBe((frames.at(-1)?.t ?? 0) - (frames[0]?.t ?? 0));
  });

  it('shows the reads seen so far while running and the run’s exact figures once finished', () => {
    const early = laneAt(a, 0);
    expect(early.finished).toBe(false);
    const midway = laneAt(a, ((frames.at(-1)?.t ?? 0) - (frames[0]?.t ?? 0)) / 2);
    // The recording reads 16 blocks at a time.
    expect(midway.blocksPerRead).toBe(16);
    expect(midway.bytesPerRead).toBe(131072);
    const end = laneAt(b, 1e9);
    expect(end).toMatchObject({ finished: true, progress: 1, readsInFlight: 0, bytesPerRead: 8192 });
  });

  it('steps between the frame times of every lane', () => {
    const steps = stepTimes([a, b]);
    expect(steps[0]).toBe(0);
    expect([...steps].sort((x, y) => x - y)).toEqual(steps);
    expect(nextStep(steps, 0, 1)).toBe(steps[1]);
    expect(nextStep(steps, steps[2] ?? 0, -1)).toBe(steps[1]);
    expect(nextStep(steps, 0, -1)).toBe(0);
  });

  it('names the winner and by how much in the lanes’ own elapsed figures, only when every lane finished', () => {
    // Lanes of different rounds, as the race replays them: EXPLAIN's times differ by another amount.
    const fast = { ...lane('icl=16', later, run('icl=16', 150.4)), round: 3 };
    const slow = { ...lane('icl=1', frames, run('icl=1', 420.2, 8192)), round: 2 };
    const shown = (which: RaceLane): number => Number(formatNumber(laneAt(which, 1e9).elapsedMs, 0));
    const outcome = raceOutcome([slow, fast]);
    expect(outcome).toMatchObject({ winner: 'icl=16', loser: 'icl=1', byMs: shown(slow) - shown(fast) });
    expect(outcome?.ratio).toBeCloseTo(laneDurationMs(slow) / laneDurationMs(fast), 6);
    expect(lanePlacing([slow, fast], 'icl=1')).toBe(`+${shown(slow) - shown(fast)} ms`);
    expect(lanePlacing([slow, fast], 'icl=16')).toBe('finished first');
    if (outcome === null) throw new Error('no outcome');
    const { result, explain } = outcomeSentences(outcome);
    expect(result).toContain(`${shown(slow) - shown(fast)} ms sooner than icl=1`);
    expect(result).toMatch(/elapsed time, as the lanes show it/);
    expect(explain).toBe(
      "EXPLAIN's execution time of the same runs (icl=16 round 3, icl=1 round 2): 150 vs 420 ms, 270 ms apart; " +
        'it leaves out sending and planning the scan. The medians of every round are below.',
    );
    expect(outcomeSentences(outcome, false).explain).not.toMatch(/medians/);
    expect(raceOutcome([a, lane('icl=1', later, null)])).toBeNull();
    expect(lanePlacing([a, lane('icl=1', later, null)], 'icl=16')).toBeNull();
  });

  it('says what the eye should catch, from the setting the lanes differ in', () => {
    expect(raceCaption(race([]).experiment.definition.variants)).toMatch(
      /^16 blocks per read: one read where the other lane needs 16/,
    );
    expect(
      raceCaption([
        { name: 'x', session: {}, server: { io_method: 'sync' } },
        { name: 'y', session: {}, server: { io_method: 'worker' } },
      ]),
    ).toMatch(/io_method sync vs worker/);
  });

  it('says a failed or cancelled race is one, and which lanes did not finish, instead of drawing it', () => {
    expect(raceProblem(race([a, b], 'failed'))).toBe('The race failed: could not extend file.');
    expect(raceProblem(race([a, lane('icl=1', later, null)], 'cancelled'))).toBe(
      'The race was cancelled (cancelled on request); icl=1 did not finish.',
    );
    expect(raceProblem(race([a, b]))).toBeNull();
    expect(raceProblem(race([]))).toMatch(
      /^No frames of abcdefabcdef on this server: it ran as an experiment, not a race/,
    );
    expect(raceProblem({ ...race([]), captures: 'expired' })).toMatch(
      /^The frames of race abcdefabcdef are no longer kept: newer races replaced them \(this server keeps the frames of its newest 4 races/,
    );
  });

  it('finds a capture too short to replay and suggests slow motion or a larger table', () => {
    expect(tooShort([a, b])).toBeNull();
    expect(tooShort([a, lane('icl=1', later.slice(0, 3), run('icl=1', 20))])).toMatch(
      /icl=1 \(3 frames\).*1\/10×.*larger table/,
    );
  });

  it('tells presentation stories from live frames, or from the race when there are none', () => {
    const live = buildStories({ frames });
    expect(live.map((story) => `${story.id}:${story.source}`)).toEqual([
      'inflight:live',
      'combining:live',
      'workers:live',
    ]);
    const replayed = buildStories({ race: race([a, b]) });
    expect(replayed.map((story) => story.id)).toEqual(['inflight', 'combining', 'workers', 'race']);
    expect(replayed[1]?.figures).toEqual([
      { label: 'icl=16', value: '16 blocks' },
      { label: 'icl=1', value: '16 blocks' },
    ]);
  });
});
