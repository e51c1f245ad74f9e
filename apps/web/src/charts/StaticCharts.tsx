/**
 * The static charts, one chunk loaded after the first paint (StaticChart.tsx): the histogram and
 * the lab's medians, both on uPlot like the live charts.
 */
export { HistogramPlot } from './HistogramPlot.tsx';
export { MedianPlot } from './MedianPlot.tsx';
