import { memo, useEffect, useRef, type ReactNode } from 'react';
import type { LiveFrame } from '@aioscope/spec';
import { animationThrottle } from '../live/animationThrottle.ts';
import type { LiveStore } from '../live/liveStore.ts';
import { useTheme } from '../theme.ts';
import { niceTicks, prepareCanvas, resolveColor } from './canvasDraw.ts';
import { useChartBox } from './useChartBox.ts';

const HEIGHT = 56;
const MARGIN = { left: 64, right: 12, top: 6, bottom: 6 };
const FONT = '11px system-ui, sans-serif';
const IDLE_REDRAW_MS = 1_000;

export interface LiveSampleStripProps {
  store: LiveStore;
  /** Milliseconds of samples shown; the right edge is the server's "now". */
  windowMs: number;
  /** The sampler's interval: a sample holds this long; a longer silence is drawn as a gap. */
  sampleIntervalMs: number;
  /** The value drawn for one frame; null draws a gap (no pg_aios sample). */
  value: (frame: LiveFrame) => number | null;
  yLabel: string;
  color: string;
  ariaLabel: string;
}

/**
 * Every sample of the last few seconds, unaveraged, redrawn when a frame arrives (at the next
 * animation frame and at most 25 Hz, so frames arriving together cost one draw). It reads the store
 * directly instead of re-rendering React: this is the one view on the page that keeps up with the
 * sample rate, the 60 s charts follow their buckets.
 */
export const LiveSampleStrip = memo(function LiveSampleStrip(props: LiveSampleStripProps): ReactNode {
  const { store, windowMs, sampleIntervalMs, value, yLabel, color, ariaLabel } = props;
  const theme = useTheme();
  const wrapper = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const { width, visible } = useChartBox(wrapper);

  useEffect(() => {
    const element = canvas.current;
    if (element === null || width === 0 || !visible) return undefined;
    const throttle = animationThrottle(() =>
      drawStrip(element, width, store.frames, store.serverNow(Date.now()), {
        windowMs,
        sampleIntervalMs,
        value,
        yLabel,
        color,
      }),
    );
    throttle.schedule();
    const unsubscribe = store.subscribe(throttle.schedule);
    // Without frames (server down) the strip still moves on once a second and shows the gap.
    const idle = window.setInterval(throttle.schedule, IDLE_REDRAW_MS);
    return () => {
      unsubscribe();
      window.clearInterval(idle);
      throttle.cancel();
    };
  }, [store, width, visible, windowMs, sampleIntervalMs, value, yLabel, color, theme]);

  return (
    <div className="chart" ref={wrapper}>
      <div className="chart-canvases" style={{ height: HEIGHT }}>
        <canvas ref={canvas} role="img" aria-label={ariaLabel} data-testid="sample-strip" />
      </div>
    </div>
  );
});

function drawStrip(
  element: HTMLCanvasElement,
  width: number,
  frames: readonly LiveFrame[],
  serverNow: number,
  options: Pick<LiveSampleStripProps, 'windowMs' | 'sampleIntervalMs' | 'value' | 'yLabel' | 'color'>,
): void {
  const context = prepareCanvas(element, width, HEIGHT);
  const newest = frames[frames.length - 1];
  if (context === null || newest === undefined) return;
  // The right edge is the server's "now" (estimated), so frames that stop leave a visible gap.
  const toT = Math.max(newest.t, serverNow);
  const fromT = toT - options.windowMs;
  let first = frames.length - 1;
  let max = 0;
  while (first > 0 && (frames[first - 1] as LiveFrame).t >= fromT) first--;
  for (let i = first; i < frames.length; i++) max = Math.max(max, options.value(frames[i] as LiveFrame) ?? 0);
  const yMax = niceTicks(max || 1, 2).at(-1) ?? 1;
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    width: width - MARGIN.left - MARGIN.right,
    height: HEIGHT - MARGIN.top - MARGIN.bottom,
  };
  const x = (t: number): number => plot.left + ((t - fromT) / options.windowMs) * plot.width;
  const y = (v: number): number => plot.top + plot.height - (v / yMax) * plot.height;
  const styles = getComputedStyle(element);

  context.font = FONT;
  context.fillStyle = resolveColor('var(--muted)', styles);
  context.textAlign = 'right';
  context.textBaseline = 'top';
  context.fillText(String(yMax), plot.left - 6, plot.top - 2);
  context.textBaseline = 'bottom';
  context.fillText('0', plot.left - 6, plot.top + plot.height + 2);
  context.textAlign = 'left';
  context.textBaseline = 'middle';
  context.fillText(options.yLabel, 4, plot.top + plot.height / 2);
  context.strokeStyle = resolveColor('var(--grid)', styles);
  context.setLineDash([2, 4]);
  context.beginPath();
  context.moveTo(plot.left, Math.round(y(yMax)) + 0.5);
  context.lineTo(plot.left + plot.width, Math.round(y(yMax)) + 0.5);
  context.moveTo(plot.left, Math.round(y(0)) - 0.5);
  context.lineTo(plot.left + plot.width, Math.round(y(0)) - 0.5);
  context.stroke();
  context.setLineDash([]);

  // One step per sample: a sample holds until the next one, as the sampler saw it.
  const stroke = resolveColor(options.color, styles);
  context.strokeStyle = stroke;
  context.fillStyle = stroke;
  context.lineWidth = 1.5;
  context.save();
  context.beginPath();
  context.rect(plot.left, 0, plot.width, HEIGHT);
  context.clip();
  context.beginPath();
  const holdPx = (options.sampleIntervalMs / options.windowMs) * plot.width;
  // Missing samples (a restart, skipped ticks in a row) break the line instead of holding a value.
  const gapMs = 2.5 * options.sampleIntervalMs;
  let previous: { t: number; px: number; py: number } | null = null;
  for (let i = first; i < frames.length; i++) {
    const frame = frames[i] as LiveFrame;
    const v = options.value(frame);
    if (v === null) {
      previous = null;
      continue;
    }
    const px = x(frame.t);
    const py = y(v);
    if (previous !== null && frame.t - previous.t > gapMs) {
      context.lineTo(previous.px + holdPx, previous.py);
      previous = null;
    }
    if (previous === null) context.moveTo(px, py);
    else {
      context.lineTo(px, previous.py);
      context.lineTo(px, py);
    }
    previous = { t: frame.t, px, py };
  }
  // The newest sample holds until the next one was due, not up to "now" across missing samples.
  if (previous !== null) context.lineTo(Math.min(plot.left + plot.width, previous.px + holdPx), previous.py);
  context.stroke();
  context.restore();
  context.lineWidth = 1;
  // What was drawn, for tests and anyone inspecting the page (a canvas has no DOM to read).
  element.dataset.newestT = String(newest.t);
  element.dataset.samples = String(frames.length - first);
}
