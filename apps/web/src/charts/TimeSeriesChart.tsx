import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import type { BucketRow } from '@aioscope/core';
import { formatRelativeSeconds } from '../format.ts';
import { useTheme } from '../theme.ts';
import { niceTicks, prepareCanvas, resolveColor, stack, type Plot } from './canvasDraw.ts';
import { useChartBox } from './useChartBox.ts';

export interface Series {
  key: string;
  label: string;
  color: string;
}

export interface ReferenceMark {
  y: number;
  label: string;
}

export interface TimeSeriesChartProps {
  rows: BucketRow[];
  series: Series[];
  kind: 'stackedArea' | 'line';
  /** [from, to] on the server's clock, epoch ms. */
  domain: [number, number];
  yLabel: string;
  formatY: (value: number) => string;
  yDomain?: [number | 'auto', number | 'auto'];
  /** Explicit y ticks, for units that read best at round values (e.g. multiples of 32 kB). */
  yTicks?: number[];
  references?: ReferenceMark[];
  height?: number;
  /** Dots on line charts (useful for sparse series such as 1 Hz deltas). */
  dots?: boolean;
  ariaLabel: string;
}

/** Ticks every 10 s counted back from the right edge, so labels read -60 s … now. */
const X_TICK_STEP_MS = 10_000;
const MARGIN = { left: 64, right: 12, top: 8, bottom: 20 };
const FONT = '11px system-ui, sans-serif';

interface Hover {
  x: number;
  row: BucketRow;
}

/**
 * One wrapper for every live time chart: real timestamps on x, units on y. Drawn on two stacked
 * canvases: these charts redraw at every chart bucket, and SVG (recharts) cost most of the page's
 * main thread at that rate (npm run bench, "browser cost"). The axes layer (grid, labels,
 * reference lines) only changes with the size, the y scale or the theme: the x ticks count back
 * from the right edge, so they do not move. The data layer is redrawn per bucket. Legend and
 * tooltip are plain DOM.
 */
export const TimeSeriesChart = memo(function TimeSeriesChart(props: TimeSeriesChartProps): ReactNode {
  const { rows, series, kind, domain, yLabel, formatY, yDomain = [0, 'auto'], yTicks, references = [] } = props;
  const height = props.height ?? 190;
  const dots = props.dots ?? true;
  const theme = useTheme();
  const wrapper = useRef<HTMLDivElement>(null);
  const axesCanvas = useRef<HTMLCanvasElement>(null);
  const dataCanvas = useRef<HTMLCanvasElement>(null);
  const { width, visible } = useChartBox(wrapper);
  const [hover, setHover] = useState<Hover | null>(null);

  const keys = series.map((s) => s.key);
  let dataMax = 0;
  for (const row of rows) {
    let sum = 0;
    for (const key of keys) {
      const value = row[key];
      if (typeof value === 'number') {
        sum = kind === 'stackedArea' ? sum + value : Math.max(sum, value);
      }
    }
    dataMax = Math.max(dataMax, sum);
  }
  for (const mark of references) dataMax = Math.max(dataMax, mark.y);
  const ticks = yTicks ?? niceTicks(typeof yDomain[1] === 'number' ? yDomain[1] : dataMax * 1.05 || 1);
  const yMin = typeof yDomain[0] === 'number' ? yDomain[0] : 0;
  const yMax = typeof yDomain[1] === 'number' ? yDomain[1] : Math.max(ticks[ticks.length - 1] ?? 1, 1e-9);
  const bucketMs = rows.length > 1 ? (rows[1]?.t ?? 0) - (rows[0]?.t ?? 0) : 1000;
  const spanMs = domain[1] - domain[0];
  // Value keys for the axes layer: callers pass fresh arrays and closures on every render.
  const tickLabels = pack(ticks.map((tick) => [tick, formatY(tick)]));
  const referenceKey = pack(references.map((mark) => [mark.y, mark.label]));

  useEffect(() => {
    const layer = visible ? beginLayer(axesCanvas.current, width, height) : null;
    if (layer === null) return;
    const { context, styles, plot } = layer;
    const y = yScale(plot, yMin, yMax);
    const grid = resolveColor('var(--grid)', styles);
    const muted = resolveColor('var(--muted)', styles);
    context.font = FONT;
    context.lineWidth = 1;

    // Grid, y labels and the axis title.
    setPen(context, { stroke: grid, fill: muted, dash: [2, 4], align: 'right', baseline: 'middle' });
    for (const [tick, label] of unpack(tickLabels)) {
      const py = horizontalRule(context, plot, y(tick));
      context.fillText(label, plot.left - 6, py);
    }
    context.textAlign = 'center';
    context.textBaseline = 'top';
    for (let back = 0; back <= spanMs + 1; back += X_TICK_STEP_MS) {
      const px = Math.round(plot.left + plot.width - (back / spanMs) * plot.width) + 0.5;
      context.beginPath();
      context.moveTo(px, plot.top);
      context.lineTo(px, plot.top + plot.height);
      context.stroke();
      context.fillText(
        formatRelativeSeconds(-back, 0),
        Math.min(Math.max(px, plot.left + 12), plot.left + plot.width - 12),
        plot.top + plot.height + 4,
      );
    }
    context.setLineDash([]);
    context.save();
    context.translate(12, plot.top + plot.height / 2);
    context.rotate(-Math.PI / 2);
    context.textAlign = 'center';
    context.textBaseline = 'middle';
    context.fillText(yLabel, 0, 0);
    context.restore();

    // Reference lines with their labels.
    const reference = resolveColor('var(--reference)', styles);
    setPen(context, { stroke: reference, fill: reference, dash: [4, 4], align: 'right', baseline: 'bottom' });
    for (const [value, label] of unpack(referenceKey)) {
      const py = horizontalRule(context, plot, y(value));
      context.fillText(label, plot.left + plot.width - 4, py + (py < plot.top + 14 ? 14 : -2));
    }
    context.setLineDash([]);
  }, [width, height, tickLabels, referenceKey, yMin, yMax, yLabel, spanMs, theme, visible]);

  useEffect(() => {
    const layer = visible ? beginLayer(dataCanvas.current, width, height) : null;
    if (layer === null) return;
    const { context, styles, plot } = layer;
    const x = (t: number): number => plot.left + ((t - domain[0]) / (domain[1] - domain[0])) * plot.width;
    const y = yScale(plot, yMin, yMax);
    const stacked = kind === 'stackedArea' ? stack(rows, keys) : null;
    context.save();
    context.beginPath();
    context.rect(plot.left, plot.top, plot.width, plot.height);
    context.clip();
    series.forEach((s, index) => {
      const color = resolveColor(s.color, styles);
      if (stacked !== null) {
        context.fillStyle = color;
        context.globalAlpha = 0.75;
        const bands = stacked[index] ?? [];
        rows.forEach((row, i) => {
          const band = bands[i];
          if (band === null || band === undefined || band[1] === band[0]) return;
          const x0 = x(row.t);
          const x1 = x(row.t + bucketMs);
          context.fillRect(x0, y(band[1]), Math.max(1, x1 - x0), y(band[0]) - y(band[1]));
        });
        context.globalAlpha = 1;
      } else {
        context.strokeStyle = color;
        context.fillStyle = color;
        context.lineWidth = 2;
        context.beginPath();
        let drawing = false;
        for (const row of rows) {
          const value = row[s.key];
          if (typeof value !== 'number') {
            drawing = false;
            continue;
          }
          const px = x(row.t + bucketMs / 2);
          if (drawing) context.lineTo(px, y(value));
          else context.moveTo(px, y(value));
          drawing = true;
        }
        context.stroke();
        if (dots) {
          for (const row of rows) {
            const value = row[s.key];
            if (typeof value !== 'number') continue;
            context.beginPath();
            context.arc(x(row.t + bucketMs / 2), y(value), 2, 0, Math.PI * 2);
            context.fill();
          }
        }
        context.lineWidth = 1;
      }
    });
    context.restore();
    // keys is derived from series.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rows, series, kind, width, height, domain, yMin, yMax, bucketMs, dots, theme, visible]);

  const onMove = (event: React.MouseEvent<HTMLCanvasElement>): void => {
    const bounds = event.currentTarget.getBoundingClientRect();
    const px = event.clientX - bounds.left;
    const plotWidth = width - MARGIN.left - MARGIN.right;
    const t = domain[0] + ((px - MARGIN.left) / plotWidth) * (domain[1] - domain[0]);
    const row = rows.find((candidate) => t >= candidate.t && t < candidate.t + bucketMs);
    setHover(row === undefined ? null : { x: px, row });
  };

  return (
    <div className="chart" ref={wrapper}>
      <div className="chart-canvases" style={{ height }}>
        <canvas ref={axesCanvas} aria-hidden="true" />
        <canvas
          ref={dataCanvas}
          role="img"
          aria-label={props.ariaLabel}
          onMouseMove={onMove}
          onMouseLeave={() => setHover(null)}
        />
      </div>
      {hover !== null ? (
        <div className="chart-tooltip" style={{ left: Math.min(hover.x + 12, Math.max(0, width - 200)) }}>
          <div className="chart-tooltip-time">{new Date(hover.row.t).toLocaleTimeString()}</div>
          {series.map((s) => (
            <div key={s.key}>
              <span className="swatch" style={{ background: s.color }} /> {s.label}:{' '}
              {typeof hover.row[s.key] === 'number' ? formatY(hover.row[s.key] as number) : 'no sample'}
            </div>
          ))}
        </div>
      ) : null}
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

/** (value, label) pairs as one string, so an effect can depend on their content. */
function pack(pairs: [number, string][]): string {
  return pairs.map(([value, label]) => `${value}\u0000${label}`).join('\u0001');
}

function unpack(packed: string): [number, string][] {
  if (packed === '') return [];
  return packed.split('\u0001').map((entry) => {
    const [value = '0', label = ''] = entry.split('\u0000');
    return [Number(value), label];
  });
}

function setPen(
  context: CanvasRenderingContext2D,
  pen: { stroke: string; fill: string; dash: number[]; align: CanvasTextAlign; baseline: CanvasTextBaseline },
): void {
  context.strokeStyle = pen.stroke;
  context.fillStyle = pen.fill;
  context.setLineDash(pen.dash);
  context.textAlign = pen.align;
  context.textBaseline = pen.baseline;
}

/** A full-width line at `y`, on the pixel grid; returns the y it was drawn at. */
function horizontalRule(context: CanvasRenderingContext2D, plot: Plot, y: number): number {
  const py = Math.round(y) + 0.5;
  context.beginPath();
  context.moveTo(plot.left, py);
  context.lineTo(plot.left + plot.width, py);
  context.stroke();
  return py;
}

/** A cleared layer ready to draw on, or null before the chart has a width. */
function beginLayer(
  element: HTMLCanvasElement | null,
  width: number,
  height: number,
): { context: CanvasRenderingContext2D; styles: CSSStyleDeclaration; plot: Plot } | null {
  if (element === null || width === 0) return null;
  const context = prepareCanvas(element, width, height);
  if (context === null) return null;
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    width: width - MARGIN.left - MARGIN.right,
    height: height - MARGIN.top - MARGIN.bottom,
  };
  return { context, styles: getComputedStyle(element), plot };
}

function yScale(plot: Plot, yMin: number, yMax: number): (value: number) => number {
  return (value) => plot.top + plot.height - ((Math.min(value, yMax) - yMin) / (yMax - yMin || 1)) * plot.height;
}
