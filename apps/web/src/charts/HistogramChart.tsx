import { lazy, memo, Suspense, useState, type LazyExoticComponent, type ReactNode } from 'react';
import { ErrorBoundary, getErrorMessage } from 'react-error-boundary';
import { retryingImport } from '../app/retryingImport.ts';
import type { HistogramChartProps, RechartsHistogram } from './RechartsHistogram.tsx';

export type { HistogramChartProps } from './RechartsHistogram.tsx';

const DEFAULT_HEIGHT = 170;

/**
 * recharts (with its d3 and state libraries) is about a third of the page's script and draws only
 * this histogram: it comes in a chunk of its own, fetched when the histogram first renders, so
 * that the charts and figures at the top of the page do not wait for it to be parsed. The fetch
 * is retried (a page stays open while aioscope restarts); a new lazy component is made for a
 * retry by hand because React.lazy keeps a failed load for good.
 */
function lazyHistogram(): LazyExoticComponent<typeof RechartsHistogram> {
  return lazy(async () => ({
    default: (await retryingImport(() => import('./RechartsHistogram.tsx'))).RechartsHistogram,
  }));
}

/** One wrapper for histograms (RechartsHistogram.tsx); until its chunk is in, an empty box of its size. */
export const HistogramChart = memo(function HistogramChart(props: HistogramChartProps): ReactNode {
  const [LazyHistogram, setLazyHistogram] = useState(lazyHistogram);
  const height = props.height ?? DEFAULT_HEIGHT;
  const loading = <div className="chart" role="img" aria-label={props.ariaLabel} style={{ height }} />;
  return (
    <ErrorBoundary
      onReset={() => setLazyHistogram(lazyHistogram)}
      fallbackRender={({ error, resetErrorBoundary }) => (
        <div className="chart chart-failed" style={{ height }} role="alert">
          <p>The histogram could not be loaded from aioscope ({getErrorMessage(error) ?? 'unknown error'}).</p>
          <button type="button" className="link" onClick={resetErrorBoundary}>
            Try again
          </button>
        </div>
      )}
    >
      <Suspense fallback={loading}>
        <LazyHistogram {...props} />
      </Suspense>
    </ErrorBoundary>
  );
});
