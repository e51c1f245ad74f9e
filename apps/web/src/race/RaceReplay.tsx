import { useId, useMemo, type KeyboardEvent, type ReactNode } from 'react';
import { isTyping } from '../app/isTyping.ts';
import type { Race } from '@aioscope/spec';
import { formatNumber } from '../format.ts';
import { RaceLaneView } from './RaceLane.tsx';
// The replay's own rules (what stays hidden until the finish) wherever it is shown: the race view or a presentation.
import './RaceView.css';
import {
  laneAt,
  lanePlacing,
  outcomeSentences,
  raceCaption,
  raceDurationMs,
  raceOutcome,
  stepTimes,
  tooShort,
} from './raceTimeline.ts';
import {
  REPLAY_DRAW_INTERVAL_MS,
  REPLAY_SPEEDS,
  REPLAY_TEXT_INTERVAL_MS,
  useReplay,
  type ReplaySpeed,
} from './useReplay.ts';

const SPEED_LABELS: Record<ReplaySpeed, string> = { 1: '1×', 0.25: '1/4×', 0.1: '1/10×' };
/** How often the figures change while playing, a second. */
const TEXT_RATE = 1000 / REPLAY_TEXT_INTERVAL_MS;

/**
 * The keys that step frames. On the page ← → (the race's own keys); in presentation mode ← → move
 * between stories, as its buttons say, so frames step with , and . (as in video players).
 */
const FRAME_KEYS = {
  page: { previous: 'ArrowLeft', next: 'ArrowRight' },
  presenting: { previous: ',', next: '.' },
} as const;

export interface RaceReplayProps {
  race: Race;
  /**
   * Presentation mode: the race waits at its start for Space (a 1× race is over in about a
   * second, before a room has looked), and frames step with , and . instead of ← →.
   */
  presenting?: boolean;
}

/** A finished race replayed: lanes started together, controls, the caption and what the race can't say alone. */
export function RaceReplay({ race, presenting = false }: RaceReplayProps): ReactNode {
  const { lanes } = race;
  const duration = useMemo(() => raceDurationMs(lanes), [lanes]);
  const steps = useMemo(() => stepTimes(lanes), [lanes]);
  const short = tooShort(lanes);
  const replay = useReplay(duration, steps, !presenting && short === null);
  const rateId = useId();
  const outcome = raceOutcome(lanes);
  const done = replay.atMs >= duration;
  const keys = FRAME_KEYS[presenting ? 'presenting' : 'page'];
  // What Space does now, said where the room looks: the race waits at its start until then.
  const spacePrompt = replay.playing
    ? 'Space pauses.'
    : done
      ? 'Space plays it again.'
      : replay.atMs === 0
        ? 'Press Space to start.'
        : 'Paused: Space plays on.';

  const onKeyDown = (event: KeyboardEvent): void => {
    if (isTyping(event.target)) return;
    // Space on a focused button is that button's own click.
    if (event.key === ' ' && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      replay.toggle();
    } else if (event.key === keys.next || event.key === keys.previous) {
      event.preventDefault();
      replay.step(event.key === keys.next ? 1 : -1);
    }
  };
  // Presentation mode has no medians table under the race: the sentence does not point to one.
  const sentences = outcome !== null ? outcomeSentences(outcome, !presenting) : null;

  return (
    <div className="race-replay" onKeyDown={onKeyDown} tabIndex={-1} data-testid="race-replay">
      <p className="race-caption">{raceCaption(race.experiment.definition.variants)}</p>
      {presenting ? (
        <p className="race-keys" data-testid="race-keys">
          <strong className="race-press-start">{spacePrompt}</strong> Frame by frame: , and . · Change story: ← →
        </p>
      ) : null}
      {short === null ? null : (
        <p className="race-short" role="status">
          {short}
        </p>
      )}
      <div className="race-lanes">
        {lanes.map((lane) => (
          <RaceLaneView
            key={lane.variant}
            lane={lane}
            moment={laneAt(lane, replay.atMs)}
            placing={lanePlacing(lanes, lane.variant)}
            replay={replay}
          />
        ))}
      </div>
      <div className="race-controls" role="group" aria-label="replay controls">
        <button type="button" className="race-toggle" onClick={replay.toggle} aria-keyshortcuts="Space">
          {replay.playing ? 'pause' : done ? 'play again' : 'play'}
        </button>
        <button
          type="button"
          onClick={() => replay.step(-1)}
          aria-label="previous frame"
          aria-keyshortcuts={keys.previous}
        >
          ◀ frame
        </button>
        <button type="button" onClick={() => replay.step(1)} aria-label="next frame" aria-keyshortcuts={keys.next}>
          frame ▶
        </button>
        <button type="button" onClick={replay.replay}>
          replay
        </button>
        <span className="race-speed" role="group" aria-label="speed">
          {REPLAY_SPEEDS.map((speed) => (
            <button
              type="button"
              key={speed}
              aria-pressed={replay.speed === speed}
              onClick={() => replay.setSpeed(speed)}
            >
              {SPEED_LABELS[speed]}
            </button>
          ))}
        </span>
        <span className="race-clock" data-testid="race-clock" aria-describedby={rateId}>
          {formatNumber(replay.atMs, 0)} / {formatNumber(duration, 0)} ms · {SPEED_LABELS[replay.speed]}
        </span>
      </div>
      <p className="race-rate" id={rateId}>
        Captured at {race.captureHz} Hz. While it plays, the bars move up to {1000 / REPLAY_DRAW_INTERVAL_MS} times a
        second and the figures {TEXT_RATE === 2 ? 'twice' : `${TEXT_RATE} times`}; paused or stepped, they show a
        captured frame exactly.
      </p>
      {/* The result is laid out from the start and shown at the end, a line saying so in its place
          until then: a sentence appearing under the lanes at each finish moved everything below
          it (a layout and repaint of the page and a hit test under the pointer, 10–35 ms each in
          a trace of the 1× replay). */}
      <div className="race-outcome">
        <p className={`race-outcome-result${done ? '' : ' pending'}`} aria-live="polite" data-testid="race-outcome">
          {sentences === null ? (
            ' '
          ) : (
            <>
              {sentences.result} <span className="race-outcome-explain">{sentences.explain}</span>
            </>
          )}
        </p>
        {sentences === null ? null : (
          <p className={`race-outcome-waiting${done ? ' pending' : ''}`}>
            Who finished first, and by how much, shows here when both lanes finish.
          </p>
        )}
      </div>
    </div>
  );
}
