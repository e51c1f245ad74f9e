import { memo, useMemo } from 'react';
import {
  Area,
  AreaChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { BucketRow } from '@aioscope/core';
import { formatRelativeSeconds } from '../format.ts';

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

function relativeTicks([from, to]: [number, number]): number[] {
  const ticks: number[] = [];
  for (let t = to; t >= from; t -= X_TICK_STEP_MS) ticks.unshift(t);
  return ticks;
}

const AXIS_TICK = { fill: 'var(--muted)', fontSize: 11 };

/** One wrapper for every time chart: real timestamps on x, units on y, no animation. */
export const TimeSeriesChart = memo(function TimeSeriesChart(props: TimeSeriesChartProps) {
  const {
    rows,
    series,
    kind,
    domain,
    yLabel,
    formatY,
    yDomain = [0, 'auto'],
    yTicks,
    references = [],
    height = 190,
    dots = true,
  } = props;
  const xTicks = useMemo(() => relativeTicks(domain), [domain]);
  const xAxis = (
    <XAxis
      dataKey="t"
      type="number"
      scale="time"
      domain={domain}
      allowDataOverflow
      ticks={xTicks}
      tickFormatter={(t: number) => formatRelativeSeconds(t, domain[1])}
      tick={AXIS_TICK}
      stroke="var(--grid)"
    />
  );
  const yAxis = (
    <YAxis
      domain={yDomain}
      {...(yTicks === undefined ? {} : { ticks: yTicks, interval: 0 })}
      tickFormatter={formatY}
      tick={AXIS_TICK}
      width={64}
      stroke="var(--grid)"
      label={{ value: yLabel, angle: -90, position: 'insideLeft', fill: 'var(--muted)', fontSize: 11, dy: 40 }}
    />
  );
  const tooltip = (
    <Tooltip
      contentStyle={{ background: 'var(--panel)', border: '1px solid var(--grid)', fontSize: 12 }}
      labelFormatter={(t) => new Date(Number(t)).toLocaleTimeString()}
      formatter={(value) => (typeof value === 'number' ? formatY(value) : '–')}
    />
  );
  const refs = references.map((mark) => (
    <ReferenceLine
      key={mark.label}
      y={mark.y}
      stroke="var(--reference)"
      strokeDasharray="4 4"
      label={{ value: mark.label, position: 'insideBottomRight', fill: 'var(--reference)', fontSize: 11 }}
    />
  ));
  return (
    <div className="chart" role="img" aria-label={props.ariaLabel}>
      <ResponsiveContainer width="100%" height={height}>
        {kind === 'stackedArea' ? (
          <AreaChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
            {xAxis}
            {yAxis}
            {tooltip}
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {refs}
            {series.map((s) => (
              <Area
                key={s.key}
                dataKey={s.key}
                name={s.label}
                stackId="stack"
                type="stepAfter"
                // No outline: a zero-height band's outline would sit on top of the stack in its colour.
                stroke="none"
                fill={s.color}
                fillOpacity={0.75}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
          </AreaChart>
        ) : (
          <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
            {xAxis}
            {yAxis}
            {tooltip}
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {refs}
            {series.map((s) => (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.label}
                type="linear"
                stroke={s.color}
                strokeWidth={2}
                dot={dots ? { r: 2 } : false}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
          </LineChart>
        )}
      </ResponsiveContainer>
    </div>
  );
});
