import { createContext, memo, useContext, useEffect, useRef, type ReactNode } from 'react';
import type { BucketRow } from '@aioscope/core';
import { useTheme } from '../theme.ts';
import { emptyColumns, fillBucketColumns, yAxisFor, type Columns } from './plotData.ts';
import { plotPalette } from './plotTheme.ts';
import type { ReferenceMark } from './referenceLines.ts';
import {
  timeSeriesLayers,
  type HoverValue,
  type Series,
  type TimeAxis,
  type TimeSeriesView,
} from './timeSeriesLayers.ts';
import { useChartBox } from './useChartBox.ts';
import { usePlot } from './usePlot.ts';

export type { ReferenceMark } from './referenceLines.ts';
export type { HoverValue, Series } from './timeSeriesLayers.ts';

export interface TimeSeriesChartProps {
  rows: readonly BucketRow[];
  series: Series[];
  kind: 'stackedArea' | 'line';
  /** [from, to] on the server's clock, epoch ms. */
  domain: [number, number];
  yLabel: string;
  formatY: (value: number) => string;
  /**
   * What a bare number counts, for the hover readout ("4.5 reads"); values formatY gives a unit
   * (kB, %) keep theirs. Defaults to yLabel; '' when the series' labels already say it.
   */
  unit?: string;
  yDomain?: [number | 'auto', number | 'auto'];
  /** Explicit y ticks, for units that read best at round values (e.g. multiples of 32 kB). */
  yTicks?: number[];
  references?: ReferenceMark[];
  height?: number;
  /** Dots on line charts (useful for sparse series such as 1 Hz deltas). */
  dots?: boolean;
  ariaLabel: string;
  /** Row values shown in the hover readout after the series, not drawn. */
  hoverOnly?: HoverValue[];
  /**
   * Dragging across the chart selects a time range (server clock, epoch ms); without this prop
   * dragging does nothing. The chart itself does not zoom: the caller decides what the range means.
   */
  onSelectRange?: (fromMs: number, toMs: number) => void;
}

/**
 * How every time chart below labels its x axis: counted back from the right edge (live, replay)
 * or by the clock (a past range). A context, so panels need not pass it.
 */
export const TimeAxisContext = createContext<TimeAxis>('relative');

/**
 * What dragging across a time chart does when the chart is not told (every panel's charts):
 * the page shows the dragged range. undefined: dragging does nothing.
 */
export const SelectRangeContext = createContext<((fromMs: number, toMs: number) => void) | undefined>(undefined);

const DEFAULT_Y_DOMAIN: [number, 'auto'] = [0, 'auto'];
const NO_REFERENCES: ReferenceMark[] = [];
const NO_HOVER_ONLY: HoverValue[] = [];

/**
 * One wrapper for every live time chart, on uPlot (layers and look in timeSeriesLayers.ts): real
 * timestamps on x, units on y, empty buckets as gaps, a hover readout at uPlot's cursor. The plot
 * is built once (again on a theme switch or other series) and then only fed with setData at every
 * chart bucket, from columns reused between updates. The legend is plain DOM.
 */
export const TimeSeriesChart = memo(function TimeSeriesChart(props: TimeSeriesChartProps): ReactNode {
  const { rows, series, kind, domain, yLabel, formatY, yTicks } = props;
  const selectFromContext = useContext(SelectRangeContext);
  const onSelectRange = props.onSelectRange ?? selectFromContext;
  const yDomain = props.yDomain ?? DEFAULT_Y_DOMAIN;
  const references = props.references ?? NO_REFERENCES;
  const hoverOnly = props.hoverOnly ?? NO_HOVER_ONLY;
  const height = props.height ?? 190;
  const dots = props.dots ?? true;
  const unit = props.unit ?? yLabel;
  const stacked = kind === 'stackedArea';
  const theme = useTheme();
  const xAxis = useContext(TimeAxisContext);
  const wrapper = useRef<HTMLDivElement>(null);
  const plotElement = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLDivElement>(null);
  const columns = useRef<Columns>(emptyColumns(0));
  const view = useRef<TimeSeriesView | null>(null);
  const box = useChartBox(wrapper);

  // The callbacks uPlot reads follow every render, drawn or not: a chart off screen would otherwise
  // keep the formatY of its last draw, and through it that render's panel data (seen in a heap snapshot).
  useEffect(() => {
    if (view.current === null) return;
    view.current.formatY = formatY;
    view.current.onSelectRange = onSelectRange;
    view.current.xAxis = xAxis;
  });

  usePlot(plotElement, box, height, {
    buildKey: JSON.stringify([theme, kind, dots, yLabel, onSelectRange !== undefined, series, hoverOnly]),
    dataDeps: [rows, domain[0], domain[1], xAxis],
    content: () => {
      const bucketMs = rows.length > 1 ? (rows[1]?.t ?? 0) - (rows[0]?.t ?? 0) : 1000;
      const keys = series.map((s) => s.key);
      const shaped = fillBucketColumns(columns.current, rows, keys, bucketMs, stacked);
      const y = yAxisFor(shaped, { yDomain, yTicks, references });
      view.current = { rows, domain, y, formatY, unit, references, hoverOnly, onSelectRange, xAxis };
      return {
        data: [shaped.x, ...shaped.ys],
        // A clock axis's labels move with the window's end; relative ones only with its length.
        axesKey: JSON.stringify([
          xAxis === 'clock' ? domain : domain[1] - domain[0],
          y.min,
          y.max,
          y.ticks.map(formatY),
          references,
        ]),
      };
    },
    // usePlot calls content() before options(): the view is set before uPlot first reads it. The
    // callbacks handed to uPlot get the ref, not this render's scope: a closure over the scope would
    // keep the panel's first data (a minute of frames) alive as long as the plot.
    options: (width, plotHeight) =>
      timeSeriesLayers(
        { width, height: plotHeight },
        {
          series,
          hoverOnly,
          stacked,
          dots,
          yLabel,
          selectable: onSelectRange !== undefined,
          palette: plotPalette(plotElement.current ?? document.documentElement),
          readout: readout.current,
        },
        view,
      ),
  });

  return (
    <div className="chart" ref={wrapper}>
      <div className="chart-plot" style={{ height }} ref={plotElement} role="img" aria-label={props.ariaLabel} />
      <div className="chart-tooltip" ref={readout} hidden />
      <div className="chart-legend">
        {series.map((s) => (
          <span key={s.key}>
            <span className="swatch" style={{ background: s.color }} /> {s.label}
          </span>
        ))}
      </div>
    </div>
  );
});
