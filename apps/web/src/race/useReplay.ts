import { useCallback, useEffect, useRef, useState } from 'react';

/** Replay speeds offered: real time and two slow motions. */
export const REPLAY_SPEEDS = [1, 0.25, 0.1] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

export interface Replay {
  /** Position into the race, ms of server time. */
  atMs: number;
  playing: boolean;
  speed: ReplaySpeed;
  setSpeed(speed: ReplaySpeed): void;
  toggle(): void;
  /** Pauses and moves to the next (+1) or previous (-1) frame time. */
  step(direction: 1 | -1): void;
  /** From the start, playing. */
  replay(): void;
}

/**
 * The replay draws at most 20 times a second, the live page's default sample rate: at 1× a 100 Hz
 * capture would otherwise render the lanes at every animation tick (60 a second here), which made
 * the race busier than the live dashboard it sits on. Stepping and slow motion still reach every
 * captured frame (at 1/4× a 100 Hz capture is 25 frames a second of replay).
 */
export const REPLAY_DRAW_INTERVAL_MS = 50;

/** The step a frame-by-frame move lands on: the nearest frame time strictly past `atMs` in that direction. */
export function nextStep(steps: readonly number[], atMs: number, direction: 1 | -1): number {
  if (direction === 1) return steps.find((t) => t > atMs + 0.05) ?? steps[steps.length - 1] ?? 0;
  return steps.findLast((t) => t < atMs - 0.05) ?? 0;
}

/** The last frame time at or before `atMs`: nothing on screen changes between two frames. */
export function frameTimeAt(steps: readonly number[], atMs: number): number {
  return steps.findLast((t) => t <= atMs) ?? 0;
}

/**
 * The race's clock: animation ticks advance it by real elapsed time × speed while playing, and
 * it stops at the end. Driven by requestAnimationFrame, so a hidden tab costs nothing.
 */
export function useReplay(durationMs: number, steps: readonly number[], autoPlay: boolean): Replay {
  const [atMs, setAtMs] = useState(0);
  const [playing, setPlaying] = useState(autoPlay);
  const [speed, setSpeed] = useState<ReplaySpeed>(1);
  // The exact position between frames lives in a ref; the state is the frame time shown.
  const position = useRef(0);

  useEffect(() => {
    if (!playing) return;
    let handle = 0;
    let previous: number | null = null;
    let publishedAt = Number.NEGATIVE_INFINITY;
    const tick = (now: number): void => {
      const next = Math.min(durationMs, position.current + (now - (previous ?? now)) * speed);
      previous = now;
      position.current = next;
      // Published at frame times only: at 1/10× a 100 Hz capture changes ~10 times a second, and
      // React skips a render when the value is unchanged (measured: 43 % main thread without this).
      if (next >= durationMs || now - publishedAt >= REPLAY_DRAW_INTERVAL_MS - 1) {
        publishedAt = now;
        setAtMs(next >= durationMs ? durationMs : frameTimeAt(steps, next));
      }
      if (next >= durationMs) setPlaying(false);
      else handle = requestAnimationFrame(tick);
    };
    handle = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(handle);
  }, [playing, speed, durationMs, steps]);

  const toggle = useCallback(() => {
    // Play at the end starts over: the button then means "watch it again".
    if (!playing && position.current >= durationMs) {
      position.current = 0;
      setAtMs(0);
    }
    setPlaying(!playing);
  }, [playing, durationMs]);

  const step = useCallback(
    (direction: 1 | -1) => {
      setPlaying(false);
      position.current = nextStep(steps, position.current, direction);
      setAtMs(position.current);
    },
    [steps],
  );

  const replay = useCallback(() => {
    position.current = 0;
    setAtMs(0);
    setPlaying(true);
  }, []);

  return { atMs, playing, speed, setSpeed, toggle, step, replay };
}
