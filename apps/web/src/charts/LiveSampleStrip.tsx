import { memo, useEffect, useEffectEvent, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import type { LiveFrame } from '@aioscope/spec';
import type { LiveStore } from '../live/liveStore.ts';
import { samplePaintClock } from '../live/samplePaintClock.ts';
import { useTheme } from '../theme.ts';
import { fillStripColumns, type StripColumns } from './plotData.ts';
import { axesLayer, seriesLayer, type LayerOptions, type PlotContent } from './layeredPlot.ts';
import { plotPalette, yAxis, Y_AXIS_PX, type PlotPalette } from './plotTheme.ts';
import { niceTicks } from './ticks.ts';
import { useChartBox } from './useChartBox.ts';
import { usePlot } from './usePlot.ts';

const HEIGHT = 56;
/** [top, right, bottom, left]: room for the top and bottom value labels; right as the charts below. */
const PADDING: [number, number, number, number] = [6, 12, 6, 0];
const IDLE_REDRAW_MS = 1_000;
/** A sample holds its value until the next one, as the sampler saw it. */
const sampleSteps = uPlot.paths.stepped?.({ align: 1 });

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

/** The strip's x range and y top as last drawn; uPlot's scale and axis callbacks read it. */
interface View {
  fromT: number;
  toT: number;
  yMax: number;
}

/**
 * Every sample of the last few seconds, unaveraged, redrawn when a frame arrives (in a task right
 * after it and at most 25 Hz, so frames arriving together cost one draw; in the same draw as the
 * "now" figures: samplePaintClock.ts). It reads the store directly and hands uPlot new columns
 * with setData instead of re-rendering React: this is the one view on the page that keeps up with
 * the sample rate, the 60 s charts follow their buckets. Its canvas is desynchronized
 * (layeredPlot.ts), so a draw reaches the screen without a rendering update of the page. Only the series
 * layer redraws per sample; the axes when the y scale steps. No cursor: what is under the mouse
 * moves away 20 times a second.
 */
export const LiveSampleStrip = memo(function LiveSampleStrip(props: LiveSampleStripProps): ReactNode {
  const { store, windowMs, sampleIntervalMs, value, yLabel, color, ariaLabel } = props;
  const theme = useTheme();
  const wrapper = useRef<HTMLDivElement>(null);
  const plotElement = useRef<HTMLDivElement>(null);
  const columns = useRef<StripColumns>({ x: [], y: [] });
  const view = useRef<View>({ fromT: 0, toT: windowMs, yMax: 1 });
  const box = useChartBox(wrapper);

  const content = (): PlotContent => {
    const frames = store.frames;
    const newest = frames[frames.length - 1];
    // The right edge is the server's "now" (estimated), so frames that stop leave a visible gap.
    const toT = Math.max(newest?.t ?? -Infinity, store.serverNow(Date.now()));
    const fromT = toT - windowMs;
    const strip = fillStripColumns(columns.current, frames, value, { fromT, sampleIntervalMs });
    const yMax = niceTicks(strip.max || 1, 2).at(-1) ?? 1;
    view.current = { fromT, toT, yMax };
    // What was drawn, for tests and anyone inspecting the page (a canvas has no DOM to read).
    const element = plotElement.current;
    if (element !== null && newest !== undefined) {
      element.dataset.newestT = String(newest.t);
      element.dataset.samples = String(strip.samples);
    }
    return { data: [columns.current.x, columns.current.y], axesKey: String(yMax) };
  };

  const plot = usePlot(plotElement, box, HEIGHT, {
    buildKey: JSON.stringify([theme, yLabel, color]),
    // Redrawn from the store subscription below, not by React renders.
    dataDeps: [],
    content,
    // The callbacks handed to uPlot get the ref, not this render's scope (see TimeSeriesChart).
    options: (width, height) =>
      stripLayers(
        { width, height },
        { palette: plotPalette(plotElement.current ?? document.documentElement), yLabel, color },
        view,
      ),
  });

  const redraw = useEffectEvent((): void => {
    plot.current?.draw(content());
  });

  useEffect(() => {
    if (!box.visible || box.width === 0) return undefined;
    const clock = samplePaintClock(store);
    let drawnAt = 0;
    const unsubscribe = clock.subscribe(() => {
      drawnAt = Date.now();
      redraw();
    });
    clock.request();
    // Without frames (server down) the strip still moves on once a second and shows the gap; while
    // frames come, this asks for nothing (an extra draw a second would cost a redraw).
    const idle = window.setInterval(() => {
      if (Date.now() - drawnAt >= IDLE_REDRAW_MS) clock.request();
    }, IDLE_REDRAW_MS / 4);
    return () => {
      unsubscribe();
      window.clearInterval(idle);
    };
  }, [store, box.visible, box.width]);

  return (
    <div className="chart" ref={wrapper}>
      <div
        className="chart-plot"
        style={{ height: HEIGHT }}
        ref={plotElement}
        role="img"
        aria-label={ariaLabel}
        data-testid="sample-strip"
      />
    </div>
  );
});

/** Axes layer: the y axis at 0 and the top only; series layer: the samples as steps, no cursor. */
function stripLayers(
  size: { width: number; height: number },
  look: { palette: PlotPalette; yLabel: string; color: string },
  shown: { readonly current: View },
): LayerOptions {
  const yRange = (): uPlot.Range.MinMax => [0, shown.current.yMax];
  return {
    axes: axesLayer({
      ...size,
      padding: PADDING,
      scales: { x: { time: false }, y: { range: yRange } },
      axes: [
        { show: false },
        yAxis(look.palette, look.yLabel, {
          splits: () => [0, shown.current.yMax],
          values: (_u, splits) => splits.map(String),
        }),
      ],
    }),
    series: seriesLayer({
      ...size,
      padding: [PADDING[0], PADDING[1], PADDING[2], PADDING[3] + Y_AXIS_PX],
      cursor: { show: false },
      scales: { x: { time: false, range: () => [shown.current.fromT, shown.current.toT] }, y: { range: yRange } },
      series: [
        {},
        { stroke: look.palette.resolve(look.color), width: 1.5, paths: sampleSteps, points: { show: false } },
      ],
    }),
  };
}
