import { lazy, memo, Suspense, type ReactNode } from 'react';
import type { HistogramChartProps } from './RechartsHistogram.tsx';

export type { HistogramChartProps } from './RechartsHistogram.tsx';

const DEFAULT_HEIGHT = 170;

/**
 * recharts (with its d3 and state libraries) is about a third of the page's script and draws only
 * this histogram: it comes in a chunk of its own, fetched when the histogram first renders, so
 * that the charts and figures at the top of the page do not wait for it to be parsed.
 */
const RechartsHistogram = lazy(async () => ({ default: (await import('./RechartsHistogram.tsx')).RechartsHistogram }));

/** One wrapper for histograms (RechartsHistogram.tsx); until its chunk is in, an empty box of its size. */
export const HistogramChart = memo(function HistogramChart(props: HistogramChartProps): ReactNode {
  const loading = (
    <div className="chart" role="img" aria-label={props.ariaLabel} style={{ height: props.height ?? DEFAULT_HEIGHT }} />
  );
  return (
    <Suspense fallback={loading}>
      <RechartsHistogram {...props} />
    </Suspense>
  );
});
