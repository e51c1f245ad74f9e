import { memo, useMemo, useRef } from 'react';
import { Bar, BarChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReferenceMark } from './TimeSeriesChart.tsx';
import { drawDue, type LastDrawing } from './drawSchedule.ts';
import { useChartBox } from './useChartBox.ts';
import { usePrintRequests } from './usePrintRequests.ts';

export interface HistogramChartProps {
  bins: { x: number; count: number }[];
  xLabel: string;
  yLabel: string;
  formatX: (x: number) => string;
  references?: ReferenceMark[] | { x: number; label: string }[];
  height?: number;
  ariaLabel: string;
}

const AXIS_TICK = { fill: 'var(--muted)', fontSize: 11 };

/**
 * The histogram itself: categorical bins on x, counts on y, reference lines at x values.
 * SVG (recharts): callers redraw it about once a second; out of view it takes new bins only
 * every few seconds (drawSchedule.ts), and at once when it comes back into view or before printing.
 * Loaded on its own (HistogramChart.tsx): recharts is most of the page's script.
 */
export const RechartsHistogram = memo(function RechartsHistogram(props: HistogramChartProps) {
  const { bins, xLabel, yLabel, formatX, height = 170 } = props;
  const references = props.references;
  const wrapper = useRef<HTMLDivElement>(null);
  const { visible } = useChartBox(wrapper);
  // Printing lays the page out without bringing the histogram into view: take the newest bins now.
  const printRequests = usePrintRequests();
  // Off screen the SVG is re-rendered every few seconds only, yet never left empty or stale for long.
  const shown = useRef<{ bins: HistogramChartProps['bins']; drawn: LastDrawing; printRequests: number }>({
    bins,
    drawn: { at: null, empty: true },
    printRequests,
  });
  const now = Date.now();
  if (
    shown.current.bins !== bins &&
    (printRequests !== shown.current.printRequests || drawDue(visible, shown.current.drawn, now))
  ) {
    shown.current = { bins, drawn: { at: now, empty: !bins.some((bin) => bin.count > 0) }, printRequests };
  }
  const shownBins = shown.current.bins;
  const chart = useMemo(() => {
    const marks = (references ?? []) as { x: number; label: string }[];
    return (
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={shownBins} margin={{ top: 16, right: 12, bottom: 14, left: 0 }}>
          <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
          <XAxis
            dataKey="x"
            tickFormatter={formatX}
            tick={AXIS_TICK}
            stroke="var(--grid)"
            interval={0}
            label={{ value: xLabel, position: 'insideBottom', offset: -8, fill: 'var(--muted)', fontSize: 11 }}
          />
          <YAxis
            allowDecimals={false}
            tick={AXIS_TICK}
            width={54}
            stroke="var(--grid)"
            label={{ value: yLabel, angle: -90, position: 'insideLeft', fill: 'var(--muted)', fontSize: 11, dy: 30 }}
          />
          <Tooltip
            contentStyle={{ background: 'var(--panel)', border: '1px solid var(--grid)', fontSize: 12 }}
            labelFormatter={(x) => formatX(Number(x))}
            formatter={(value) => [String(value), 'reads']}
          />
          {marks.map((mark) => (
            <ReferenceLine
              key={mark.label}
              x={mark.x}
              stroke="var(--reference)"
              strokeDasharray="4 4"
              ifOverflow="extendDomain"
            />
          ))}
          <Bar dataKey="count" fill="var(--series-2)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    );
  }, [shownBins, height, formatX, xLabel, yLabel, references]);
  return (
    <div className="chart" role="img" aria-label={props.ariaLabel} ref={wrapper}>
      {chart}
    </div>
  );
});
