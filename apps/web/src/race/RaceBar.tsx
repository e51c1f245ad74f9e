import { useEffect, useRef, type ReactNode } from 'react';
import type { RaceLane } from '@aioscope/spec';
import { useTheme } from '../theme.ts';
import { laneAt } from './raceTimeline.ts';
import type { ReplayDraw } from './useReplay.ts';

const RADIUS_PX = 6;

export interface RaceBarProps {
  lane: RaceLane;
  /** The replay's draw subscription (useReplay): the bar redraws at every drawn position. */
  subscribe(draw: ReplayDraw): () => void;
  drawnMs(): number;
  /** Share of the table read as the page's text says it (refreshed twice a second while playing). */
  percent: number;
}

/**
 * A lane's progress bar, a canvas redrawn when a position the replay draws (up to 20 a second)
 * moves its fill.
 * The canvas is desynchronized, as the live charts' (charts/layeredPlot.ts): its drawing, in the
 * replay's timer task, reaches the screen without a rendering update of the page, where a bar
 * fill's width in the DOM costs one at every move. The progressbar's value for assistive
 * technology follows the page's text.
 */
export function RaceBar({ lane, subscribe, drawnMs, percent }: RaceBarProps): ReactNode {
  const canvas = useRef<HTMLCanvasElement>(null);
  const theme = useTheme();

  useEffect(() => {
    const element = canvas.current;
    const context = element?.getContext('2d', { desynchronized: true }) ?? null;
    if (element === null || context === null) return undefined;
    // Read from the canvas itself, not the page's cached palette (plotTheme.ts): presentation
    // mode sets its own colours on its subtree.
    const styles = getComputedStyle(element);
    const track = styles.getPropertyValue('--grid').trim() || 'gray';
    const fill = styles.getPropertyValue('--series-1').trim() || 'steelblue';
    // The fill's width as last drawn: a draw that would not move it is skipped (a finished lane
    // waiting for the other, a frame that read nothing new), each canvas handed to the compositor costing.
    let drawnWidth = -1;
    const paint = (atMs: number, force = false): void => {
      const { width, height } = element;
      if (width === 0 || height === 0) return;
      const fillWidth = Math.round(width * laneAt(lane, atMs).progress);
      if (fillWidth === drawnWidth && !force) return;
      drawnWidth = fillWidth;
      const ratio = window.devicePixelRatio || 1;
      const radius = RADIUS_PX * ratio;
      context.clearRect(0, 0, width, height);
      context.save();
      context.beginPath();
      context.roundRect(0, 0, width, height, radius);
      context.clip();
      context.fillStyle = track;
      context.fillRect(0, 0, width, height);
      context.fillStyle = fill;
      context.fillRect(0, 0, fillWidth, height);
      context.restore();
    };
    const resize = new ResizeObserver(([entry]) => {
      const box = entry?.contentRect;
      if (box === undefined) return;
      const ratio = window.devicePixelRatio || 1;
      element.width = Math.round(box.width * ratio);
      element.height = Math.round(box.height * ratio);
      paint(drawnMs(), true);
    });
    resize.observe(element);
    const unsubscribe = subscribe((atMs) => paint(atMs));
    return () => {
      unsubscribe();
      resize.disconnect();
    };
  }, [lane, subscribe, drawnMs, theme]);

  return (
    <div
      className="race-bar"
      role="progressbar"
      aria-label={`${lane.variant}: table read`}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
    >
      <canvas ref={canvas} className="race-bar-canvas" data-testid="race-bar" />
    </div>
  );
}
