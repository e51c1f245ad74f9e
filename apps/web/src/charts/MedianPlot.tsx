import { memo, useRef, type ReactNode } from 'react';
import { useTheme } from '../theme.ts';
import { medianData, medianLayers, MEDIAN_ROW_PX, type MedianRow, type MedianView } from './medianLayers.ts';
import { plotPalette } from './plotTheme.ts';
import { useChartBox } from './useChartBox.ts';
import { usePlot } from './usePlot.ts';

export interface MedianChartProps {
  rows: MedianRow[];
  formatValue: (value: number) => string;
  ariaLabel: string;
}

/** Below this width the labels and values get the narrow page's columns (styles.css at 420 px). */
const NARROW_PX = 500;

/**
 * Medians as horizontal bars with their min–max spread drawn over them (medianLayers.ts): the
 * noise next to the signal. The figures themselves are in the results table beside it, which is
 * the chart's text alternative.
 */
export const MedianPlot = memo(function MedianPlot({ rows, formatValue, ariaLabel }: MedianChartProps): ReactNode {
  const theme = useTheme();
  const wrapper = useRef<HTMLDivElement>(null);
  const plotElement = useRef<HTMLDivElement>(null);
  const view = useRef<MedianView | null>(null);
  const box = useChartBox(wrapper);
  const narrow = box.width > 0 && box.width < NARROW_PX;
  const height = Math.max(1, rows.length) * MEDIAN_ROW_PX;
  usePlot(plotElement, box, height, {
    buildKey: JSON.stringify([theme, narrow]),
    dataDeps: [rows, formatValue],
    content: () => {
      const scale = Math.max(...rows.map((row) => row.max), 1);
      view.current = { rows, scale, formatValue };
      return { data: medianData(rows), axesKey: JSON.stringify([rows.map((row) => row.label), scale]) };
    },
    options: (width, plotHeight) =>
      medianLayers(
        { width, height: plotHeight },
        {
          labelWidth: narrow ? 98 : 188,
          valueWidth: narrow ? 70 : 90,
          palette: plotPalette(plotElement.current ?? document.documentElement),
          barColor: 'var(--series-1)',
          rangeColor: 'var(--text)',
        },
        view,
      ),
  });
  return (
    <div className="chart" ref={wrapper}>
      <div className="chart-bars" style={{ height }} ref={plotElement} role="img" aria-label={ariaLabel} />
    </div>
  );
});
