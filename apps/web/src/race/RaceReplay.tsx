import { useMemo, type KeyboardEvent, type ReactNode } from 'react';
import type { Race } from '@aioscope/spec';
import { formatNumber } from '../format.ts';
import { RaceLaneView } from './RaceLane.tsx';
import { laneAt, raceCaption, raceDurationMs, raceOutcome, stepTimes, tooShort } from './raceTimeline.ts';
import { REPLAY_SPEEDS, useReplay, type ReplaySpeed } from './useReplay.ts';

const SPEED_LABELS: Record<ReplaySpeed, string> = { 1: '1×', 0.25: '1/4×', 0.1: '1/10×' };

/** Keys of the race, when focus is inside it and not in a field. Presentation mode forwards the same keys. */
export function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))
  );
}

/** A finished race replayed: lanes started together, controls, the caption and what the race can't say alone. */
export function RaceReplay({ race, autoPlay = true }: { race: Race; autoPlay?: boolean }): ReactNode {
  const { lanes } = race;
  const duration = useMemo(() => raceDurationMs(lanes), [lanes]);
  const steps = useMemo(() => stepTimes(lanes), [lanes]);
  const short = tooShort(lanes);
  const replay = useReplay(duration, steps, autoPlay && short === null);
  const outcome = raceOutcome(lanes);
  const done = replay.atMs >= duration;

  const onKeyDown = (event: KeyboardEvent): void => {
    if (isTyping(event.target)) return;
    // Space on a focused button is that button's own click.
    if (event.key === ' ' && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      replay.toggle();
    } else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      replay.step(event.key === 'ArrowRight' ? 1 : -1);
    }
  };

  const placing = (variant: string): string | null => {
    if (outcome === null) return null;
    if (variant === outcome.winner) return 'finished first';
    const run = lanes.find((lane) => lane.variant === variant)?.run;
    const winner = lanes.find((lane) => lane.variant === outcome.winner)?.run;
    return run && winner ? `+${formatNumber(run.executionMs - winner.executionMs, 0)} ms` : null;
  };

  return (
    <div className="race-replay" onKeyDown={onKeyDown} tabIndex={-1} data-testid="race-replay">
      <p className="race-caption">{raceCaption(race.experiment.definition.variants)}</p>
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
            placing={placing(lane.variant)}
          />
        ))}
      </div>
      <div className="race-controls" role="group" aria-label="replay controls">
        <button type="button" onClick={replay.toggle} aria-keyshortcuts="Space">
          {replay.playing ? 'pause' : done ? 'play again' : 'play'}
        </button>
        <button type="button" onClick={() => replay.step(-1)} aria-label="previous frame" aria-keyshortcuts="ArrowLeft">
          ◀ frame
        </button>
        <button type="button" onClick={() => replay.step(1)} aria-label="next frame" aria-keyshortcuts="ArrowRight">
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
        <span className="race-clock" data-testid="race-clock">
          {formatNumber(replay.atMs, 0)} / {formatNumber(duration, 0)} ms · {SPEED_LABELS[replay.speed]}
        </span>
      </div>
      <p className="race-outcome" aria-live="polite" data-testid="race-outcome">
        {done && outcome !== null
          ? `${outcome.winner} finished first, ${formatNumber(outcome.byMs, 0)} ms sooner than ${outcome.loser} (${outcome.ratio.toFixed(2)}× faster) in this round.`
          : ' '}
      </p>
    </div>
  );
}
