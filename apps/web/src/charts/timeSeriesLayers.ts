import uPlot from 'uplot';
import type { BucketRow } from '@aioscope/core';
import { formatClockTime, formatRelativeSeconds } from '../format.ts';
import { hoverReadout } from './hoverReadout.ts';
import { axesLayer, seriesLayer, type LayerOptions } from './layeredPlot.ts';
import { withUnit, type YAxis } from './plotData.ts';
import { axisLook, yAxis, Y_AXIS_PX, type PlotPalette } from './plotTheme.ts';
import { referenceLines, type ReferenceMark } from './referenceLines.ts';
import { fittedClockTicks, formatClockTicks, ticksBackFrom } from './ticks.ts';

export interface Series {
  key: string;
  label: string;
  color: string;
}

/** A row value named in the hover readout but not drawn (the figure behind a drawn one). */
export interface HoverValue {
  key: string;
  label: string;
  /** Defaults to the chart's formatY and unit. */
  format?: (value: number) => string;
}

/** What a time chart shows now, and whom it reports to: its uPlot callbacks read it at each draw and hover. */
export interface TimeSeriesView {
  rows: readonly BucketRow[];
  domain: [number, number];
  y: YAxis;
  formatY: (value: number) => string;
  /** Appended to bare numbers in the hover readout. */
  unit: string;
  references: readonly ReferenceMark[];
  hoverOnly: readonly HoverValue[];
  onSelectRange: ((fromMs: number, toMs: number) => void) | undefined;
  /** 'relative': "-60 s … now" (live); 'replay': "-60 s … then" (the moment replayed); 'clock': times of day (a past range). */
  xAxis: TimeAxis;
}

export type TimeAxis = 'relative' | 'replay' | 'clock';

export interface TimeSeriesLook {
  series: readonly Series[];
  /** Their labels; values come from the view's hoverOnly at each hover. */
  hoverOnly: readonly HoverValue[];
  stacked: boolean;
  dots: boolean;
  yLabel: string;
  /** Dragging selects a time range (reported through view().onSelectRange). */
  selectable: boolean;
  palette: PlotPalette;
  /** The element uPlot's hover readout is written into; none, no readout. */
  readout: HTMLElement | null;
}

/** Ticks every 10 s counted back from the right edge, so labels read -60 s … now. */
const X_TICK_STEP_MS = 10_000;
/** About this many labels on a clock axis. */
const X_TICKS_WANTED = 6;
const X_AXIS_PX = 20;
/** Plot padding [top, right, bottom, left]: room for the top value label and the "now" label. */
const PADDING: [number, number, number, number] = [8, 12, 0, 0];
/** A stacked bucket is a bar as wide as its bucket, centred on the bucket's middle. */
const bucketBars = uPlot.paths.bars?.({ align: 0, size: [1, Infinity], gap: 0 });

/**
 * The two uPlot layers of a time chart; `shown` is set before uPlot first reads it. Axes: x counts back from 0 at the right edge (the labels
 * do not move with the window, so this layer redraws only when the y scale changes), y in the
 * caller's units, reference lines. Series: real timestamps on x, stacked series as bucket-wide
 * bars on the running total below them, lines through bucket means, uPlot's cursor with a readout.
 */
export function timeSeriesLayers(
  size: { width: number; height: number },
  look: TimeSeriesLook,
  shown: { readonly current: TimeSeriesView | null },
): LayerOptions {
  const { series, stacked, palette } = look;
  // The plot keeps these callbacks for its lifetime: they hold the ref, never a render's data.
  const view = (): TimeSeriesView => shown.current as TimeSeriesView;
  const yRange = (): uPlot.Range.MinMax => [view().y.min, view().y.max];
  const axes = axesLayer({
    ...size,
    padding: PADDING,
    scales: {
      x: { time: false, range: () => [view().domain[0] - view().domain[1], 0] },
      y: { range: yRange },
    },
    axes: [
      {
        ...axisLook(palette),
        scale: 'x',
        side: 2,
        size: X_AXIS_PX,
        gap: 4,
        // The scale counts back from 0 at the right edge; a clock axis adds the edge's time back.
        splits: (u, _axis, min, max) =>
          view().xAxis !== 'clock'
            ? ticksBackFrom(max, min, X_TICK_STEP_MS)
            : fittedClockTicks(
                min + view().domain[1],
                max + view().domain[1],
                // The plot's width in CSS px (uPlot's box is in device px), before its first layout the chart's.
                u.bbox.width > 0 ? u.bbox.width / uPlot.pxRatio : size.width - Y_AXIS_PX,
                PADDING[1],
                X_TICKS_WANTED,
              ).map((t) => t - view().domain[1]),
        values: (_u, splits) =>
          view().xAxis !== 'clock'
            ? splits.map((t) => formatRelativeSeconds(t, 0, view().xAxis === 'replay' ? 'then' : 'now'))
            : formatClockTicks(splits.map((t) => t + view().domain[1])),
      },
      yAxis(palette, look.yLabel, {
        splits: () => view().y.ticks,
        values: (_u, splits) => splits.map((value) => view().formatY(value)),
      }),
    ],
    plugins: [referenceLines(() => view().references, palette.reference)],
  });
  const seriesOnTop = seriesLayer({
    ...size,
    padding: [PADDING[0], PADDING[1], PADDING[2] + X_AXIS_PX, PADDING[3] + Y_AXIS_PX],
    scales: { x: { time: false, range: () => view().domain }, y: { range: yRange } },
    series: [{}, ...series.map((s) => seriesOptions(s, palette, stacked, look.dots))],
    // Stacked: each series' bars start on the running total of the series below it.
    bands: stacked ? series.slice(1).map((_, index) => ({ series: [index + 2, index + 1] })) : [],
    cursor: {
      x: true,
      y: false,
      points: { show: !stacked },
      drag: { x: look.selectable, y: false, setScale: false },
    },
    select: { show: look.selectable, left: 0, top: 0, width: 0, height: 0 },
    hooks: { setSelect: [(u) => reportSelection(u, view().onSelectRange)] },
    plugins:
      look.readout === null
        ? []
        : [
            hoverReadout(
              look.readout,
              // Hover-only values follow the drawn series, without a swatch: they have no line.
              [...series, ...look.hoverOnly.map((value) => ({ label: value.label, color: null }))],
              (index) => describeRow(view(), series, index),
            ),
          ],
  });
  return { axes, series: seriesOnTop };
}

function seriesOptions(series: Series, palette: PlotPalette, stacked: boolean, dots: boolean): uPlot.Series {
  const color = palette.resolve(series.color);
  if (stacked) {
    return { label: series.label, stroke: color, fill: color, width: 0, alpha: 0.75, paths: bucketBars };
  }
  return {
    label: series.label,
    stroke: color,
    width: 2,
    points: { show: dots, size: 4, width: 0, fill: color, stroke: color },
  };
}

/** The hovered bucket's time, each series' own value there (not the stacked total) and the hover-only values. */
function describeRow(
  view: TimeSeriesView,
  series: readonly Series[],
  index: number,
): { time: string; values: string[] } | null {
  const row = view.rows[index];
  if (row === undefined) return null;
  const format = (key: string, own?: (value: number) => string): string => {
    const value = row[key];
    if (typeof value !== 'number') return 'no sample';
    return own !== undefined ? own(value) : withUnit(view.formatY(value), view.unit);
  };
  return {
    time: formatClockTime(row.t),
    values: [...series.map((s) => format(s.key)), ...view.hoverOnly.map((h) => format(h.key, h.format))],
  };
}

/** Hands a dragged range to the caller and clears the selection box (the chart does not zoom). */
function reportSelection(u: uPlot, onSelectRange: TimeSeriesView['onSelectRange']): void {
  const { left, width } = u.select;
  if (onSelectRange === undefined || width <= 0) return;
  onSelectRange(u.posToVal(left, 'x'), u.posToVal(left + width, 'x'));
  u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
}
