import { memo, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { useTheme } from '../theme.ts';
import {
  countTicks,
  histogramData,
  histogramLayers,
  type HistogramBin,
  type HistogramView,
} from './histogramLayers.ts';
import { plotPalette } from './plotTheme.ts';
import { useChartBox } from './useChartBox.ts';
import { usePlot } from './usePlot.ts';

export interface HistogramChartProps {
  bins: HistogramBin[];
  xLabel: string;
  yLabel: string;
  formatX: (x: number) => string;
  /** What x counts, named in the readout ("16 blocks"); '' when formatX says it. */
  xUnit?: string;
  references?: { x: number; label: string }[];
  height?: number;
  ariaLabel: string;
}

const NO_MARKS: { x: number; label: string }[] = [];
const BAR_COLOR = 'var(--series-2)';

/** Arrow keys, Home and End move between bins, as they do in a list. */
function nextBin(key: string, current: number | null, count: number): number | null | undefined {
  if (count === 0) return undefined;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (key === 'ArrowRight') return current === null ? 0 : Math.min(count - 1, current + 1);
  if (key === 'ArrowLeft') return current === null ? count - 1 : Math.max(0, current - 1);
  if (key === 'Escape') return null;
  return undefined;
}

/**
 * A histogram on uPlot (layers in histogramLayers.ts): categorical bins on x, counts on y, dashed
 * lines at the reference x values, the bin under the mouse in a readout. Focused, the arrow keys
 * walk the bins and the readout (a live region) says each one. Drawn like the live charts
 * (usePlot): out of view only every few seconds, at once when it comes back or before printing.
 */
export const HistogramPlot = memo(function HistogramPlot(props: HistogramChartProps): ReactNode {
  const { bins, xLabel, yLabel, formatX, height = 170 } = props;
  const references = props.references ?? NO_MARKS;
  const xUnit = props.xUnit ?? '';
  const theme = useTheme();
  const wrapper = useRef<HTMLDivElement>(null);
  const plotElement = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLDivElement>(null);
  const view = useRef<HistogramView | null>(null);
  const focusedBin = useRef<number | null>(null);
  const readoutId = useId();
  const box = useChartBox(wrapper);

  const plot = usePlot(plotElement, box, height, {
    buildKey: JSON.stringify([theme, xLabel, yLabel]),
    dataDeps: [bins, references, formatX, xUnit],
    content: () => {
      const yTicks = countTicks(bins.reduce((max, bin) => Math.max(max, bin.count), 0));
      view.current = { bins, yTicks, formatX, marks: references, xUnit };
      return {
        data: histogramData(bins),
        axesKey: JSON.stringify([bins.length, bins[0]?.x, yTicks, references]),
      };
    },
    options: (width, plotHeight) =>
      histogramLayers(
        { width, height: plotHeight },
        {
          xLabel,
          yLabel,
          color: BAR_COLOR,
          palette: plotPalette(plotElement.current ?? document.documentElement),
          readout: readout.current,
        },
        view,
      ),
  });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const next = nextBin(event.key, focusedBin.current, bins.length);
    if (next === undefined) return;
    event.preventDefault();
    focusedBin.current = next;
    plot.current?.pointAt(next === null ? null : (bins[next]?.x ?? null));
  };
  const onBlur = (): void => {
    focusedBin.current = null;
    plot.current?.pointAt(null);
  };

  return (
    <div className="chart" ref={wrapper}>
      <div
        className="chart-bars"
        style={{ height }}
        ref={plotElement}
        role="img"
        aria-label={`${props.ariaLabel} (arrow keys read each bar)`}
        aria-describedby={readoutId}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      />
      <div className="chart-tooltip" ref={readout} id={readoutId} aria-live="polite" hidden />
    </div>
  );
});
