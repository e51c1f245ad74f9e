import type { HistogramChartProps } from './HistogramPlot.tsx';
import { lazyStaticChart } from './StaticChart.tsx';

export type { HistogramChartProps } from './HistogramPlot.tsx';

/** The read-size histogram (HistogramPlot.tsx), loaded after the first paint. */
export const HistogramChart = lazyStaticChart<HistogramChartProps>('histogram', (charts) => charts.HistogramPlot, 170);
