import { useCallback, useEffect, useRef, useState } from 'react';

/** Replay speeds offered: real time and two slow motions. */
export const REPLAY_SPEEDS = [1, 0.25, 0.1] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** Draws a lane's moving part (its bar) at a replay position, ms into the race. */
export type ReplayDraw = (atMs: number) => void;

export interface Replay {
  /**
   * The position the page's text shows (figures, clock), ms into the race: refreshed at most
   * every REPLAY_TEXT_INTERVAL_MS while playing, exact whenever the replay stops or steps.
   */
  atMs: number;
  playing: boolean;
  speed: ReplaySpeed;
  setSpeed(speed: ReplaySpeed): void;
  toggle(): void;
  /** Pauses and moves to the next (+1) or previous (-1) frame time. */
  step(direction: 1 | -1): void;
  /** From the start, playing. */
  replay(): void;
  /** Calls `draw` at every drawn position from now on; returns the unsubscribe function. Stable. */
  subscribe(draw: ReplayDraw): () => void;
  /** The position drawn last (a canvas that resizes or changes theme redraws it). Stable. */
  drawnMs(): number;
}

/**
 * The bars move at most 20 times a second, the live page's default sample rate: at 1× a 100 Hz
 * capture would otherwise draw at every captured frame. Stepping and slow motion still reach every
 * captured frame (at 1/4× a 100 Hz capture is 25 frames a second of replay).
 */
export const REPLAY_DRAW_INTERVAL_MS = 50;

/**
 * The figures and the clock, text in the page, change at most twice a second while playing, as
 * the live dashboard's figures do beside its 20 Hz sample strip. Every text change is a rendering
 * update of the page (style, layout, paint and a hit test under the pointer: 5–6 ms each on the
 * bench's software-rendered Chromium); with the text changing at every 20 Hz draw, the 1× replay
 * kept the main thread 2.4× as busy as the live dashboard it sits on (bench race-replay). A figure
 * that changes 20 times a second cannot be read anyway: the bars carry the motion, and a pause or
 * a step shows the exact figures of any captured frame.
 */
export const REPLAY_TEXT_INTERVAL_MS = 500;

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
 * The race's clock: a timer advances it by real elapsed time × speed while playing, and it stops
 * at the end. A task, not an animation frame: the bars are desynchronized canvases (RaceBar.tsx)
 * that reach the screen without a rendering update of the page, which an animation frame would
 * ask for at every tick. A hidden tab's timers run at most once a second, and the race is seconds long.
 */
export function useReplay(durationMs: number, steps: readonly number[], autoPlay: boolean): Replay {
  const [atMs, setAtMs] = useState(0);
  const [playing, setPlaying] = useState(autoPlay);
  const [speed, setSpeed] = useState<ReplaySpeed>(1);
  // The exact position between frames lives in a ref; `drawn` is the frame time on the bars.
  const position = useRef(0);
  const drawn = useRef(0);
  const draws = useRef(new Set<ReplayDraw>());

  const draw = useCallback((frameMs: number) => {
    drawn.current = frameMs;
    for (const listener of draws.current) listener(frameMs);
  }, []);

  /** Stops the text and the bars at one position together. */
  const showAt = useCallback(
    (frameMs: number) => {
      setAtMs(frameMs);
      draw(frameMs);
    },
    [draw],
  );

  useEffect(() => {
    if (!playing) return undefined;
    let previous = performance.now();
    let textAt = previous;
    const timer = window.setInterval(() => {
      const now = performance.now();
      const next = Math.min(durationMs, position.current + (now - previous) * speed);
      previous = now;
      position.current = next;
      if (next >= durationMs) {
        showAt(durationMs);
        setPlaying(false);
        return;
      }
      const frameMs = frameTimeAt(steps, next);
      // Between two captured frames nothing on screen changes: no draw.
      if (frameMs !== drawn.current) draw(frameMs);
      if (now - textAt >= REPLAY_TEXT_INTERVAL_MS - 1) {
        textAt = now;
        setAtMs(frameMs);
      }
    }, REPLAY_DRAW_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [playing, speed, durationMs, steps, draw, showAt]);

  const toggle = useCallback(() => {
    // Play at the end starts over: the button then means "watch it again".
    if (!playing && position.current >= durationMs) {
      position.current = 0;
      showAt(0);
    }
    // Paused: the text catches up with the bars at once.
    if (playing) showAt(drawn.current);
    setPlaying(!playing);
  }, [playing, durationMs, showAt]);

  const step = useCallback(
    (direction: 1 | -1) => {
      setPlaying(false);
      position.current = nextStep(steps, position.current, direction);
      showAt(position.current);
    },
    [steps, showAt],
  );

  const replay = useCallback(() => {
    position.current = 0;
    showAt(0);
    setPlaying(true);
  }, [showAt]);

  const subscribe = useCallback((listener: ReplayDraw) => {
    draws.current.add(listener);
    return () => {
      draws.current.delete(listener);
    };
  }, []);
  const drawnMs = useCallback(() => drawn.current, []);

  return { atMs, playing, speed, setSpeed, toggle, step, replay, subscribe, drawnMs };
}
