import { MEDIAN_ROW_PX } from './medianLayers.ts';
import type { MedianChartProps } from './MedianPlot.tsx';
import { lazyStaticChart } from './StaticChart.tsx';

export type { MedianChartProps } from './MedianPlot.tsx';

/** The lab's medians with their spread (MedianPlot.tsx), loaded after the first paint. */
export const MedianChart = lazyStaticChart<MedianChartProps>(
  'chart',
  (charts) => charts.MedianPlot,
  (props) => Math.max(1, props.rows.length) * MEDIAN_ROW_PX,
);
