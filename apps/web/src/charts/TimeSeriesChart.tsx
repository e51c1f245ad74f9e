import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import type { BucketRow } from '@aioscope/core';
import { formatRelativeSeconds } from '../format.ts';
import { niceTicks, resolveColor, stack, type Plot } from './canvasDraw.ts';

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
 * One wrapper for every live time chart: real timestamps on x, units on y. Drawn on a canvas:
 * these charts redraw several times a second, and SVG (recharts) cost most of the page's main
 * thread at that rate (npm run bench, "browser cost"). Legend and tooltip are plain DOM.
 */
export const TimeSeriesChart = memo(function TimeSeriesChart(props: TimeSeriesChartProps): ReactNode {
  const { rows, series, kind, domain, yLabel, formatY, yDomain = [0, 'auto'], yTicks, references = [] } = props;
  const height = props.height ?? 190;
  const dots = props.dots ?? true;
  const wrapper = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<Hover | null>(null);

  useEffect(() => {
    const element = wrapper.current;
    if (element === null) return undefined;
    const observer = new ResizeObserver((entries) => setWidth(Math.floor(entries[0]?.contentRect.width ?? 0)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const keys = series.map((s) => s.key);
  const stacked = kind === 'stackedArea' ? stack(rows, keys) : null;
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

  useEffect(() => {
    const element = canvas.current;
    if (element === null || width === 0) return;
    const ratio = window.devicePixelRatio || 1;
    element.width = width * ratio;
    element.height = height * ratio;
    const context = element.getContext('2d');
    if (context === null) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    const styles = getComputedStyle(element);
    const plot: Plot = {
      left: MARGIN.left,
      top: MARGIN.top,
      width: width - MARGIN.left - MARGIN.right,
      height: height - MARGIN.top - MARGIN.bottom,
    };
    const x = (t: number): number => plot.left + ((t - domain[0]) / (domain[1] - domain[0])) * plot.width;
    const y = (value: number): number =>
      plot.top + plot.height - ((Math.min(value, yMax) - yMin) / (yMax - yMin || 1)) * plot.height;
    const grid = resolveColor('var(--grid)', styles);
    const muted = resolveColor('var(--muted)', styles);
    context.font = FONT;
    context.lineWidth = 1;

    // Grid, y labels and the axis title.
    context.strokeStyle = grid;
    context.fillStyle = muted;
    context.setLineDash([2, 4]);
    context.textAlign = 'right';
    context.textBaseline = 'middle';
    for (const tick of ticks) {
      const py = Math.round(y(tick)) + 0.5;
      context.beginPath();
      context.moveTo(plot.left, py);
      context.lineTo(plot.left + plot.width, py);
      context.stroke();
      context.fillText(formatY(tick), plot.left - 6, py);
    }
    context.textAlign = 'center';
    context.textBaseline = 'top';
    for (let t = domain[1]; t >= domain[0] - 1; t -= X_TICK_STEP_MS) {
      const px = Math.round(x(t)) + 0.5;
      context.beginPath();
      context.moveTo(px, plot.top);
      context.lineTo(px, plot.top + plot.height);
      context.stroke();
      context.fillText(
        formatRelativeSeconds(t, domain[1]),
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

    // Data, clipped to the plot.
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

    // Reference lines with their labels.
    const reference = resolveColor('var(--reference)', styles);
    context.strokeStyle = reference;
    context.fillStyle = reference;
    context.setLineDash([4, 4]);
    context.textAlign = 'right';
    context.textBaseline = 'bottom';
    for (const mark of references) {
      const py = Math.round(y(mark.y)) + 0.5;
      context.beginPath();
      context.moveTo(plot.left, py);
      context.lineTo(plot.left + plot.width, py);
      context.stroke();
      context.fillText(mark.label, plot.left + plot.width - 4, py + (py < plot.top + 14 ? 14 : -2));
    }
    context.setLineDash([]);
  }, [rows, series, stacked, width, height, domain, ticks, yMin, yMax, yLabel, formatY, references, bucketMs, dots]);

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
      <canvas
        ref={canvas}
        role="img"
        aria-label={props.ariaLabel}
        style={{ width: '100%', height }}
        onMouseMove={onMove}
        onMouseLeave={() => setHover(null)}
      />
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
