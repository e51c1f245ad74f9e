import uPlot from 'uplot';
import { axesLayer, seriesLayer, type LayerOptions } from './layeredPlot.ts';
import { axisLook, PLOT_FONT, type PlotPalette } from './plotTheme.ts';

/** One row: a median as the bar, its spread (min–max) as a line over it. */
export interface MedianRow {
  label: string;
  median: number;
  min: number;
  max: number;
}

export interface MedianView {
  rows: readonly MedianRow[];
  /** The value axis runs from 0 to this (the largest max). */
  scale: number;
  formatValue: (value: number) => string;
}

export interface MedianLook {
  /** Room for the row labels at the left (the old table's first column). */
  labelWidth: number;
  /** Room for each row's value at the right. */
  valueWidth: number;
  palette: PlotPalette;
  barColor: string;
  rangeColor: string;
}

/** Each row's height: a 14 px bar and its gap, as the rows of the chart it replaces. */
export const MEDIAN_ROW_PX = 22;
const BAR_PX = 14;

/** The rows as uPlot's columns: row index 0, 1, … on the category scale, medians on the value scale. */
export function medianData(rows: readonly MedianRow[]): uPlot.AlignedData {
  return [rows.map((_, index) => index), rows.map((row) => row.median)];
}

const ratioFont = (): string => PLOT_FONT.replace(/^(\d+)px/, (_, size: string) => `${Number(size) * uPlot.pxRatio}px`);

/** Over the bars: each row's min–max line and its median, written at the right. */
function spreadsAndValues(view: () => MedianView, look: MedianLook): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const ratio = uPlot.pxRatio;
        const { ctx } = u;
        const { left, width } = u.bbox;
        ctx.save();
        ctx.font = ratioFont();
        ctx.textAlign = 'right';
        ctx.textBaseline = 'middle';
        ctx.fillStyle = look.palette.resolve('var(--text)');
        ctx.strokeStyle = look.palette.resolve(look.rangeColor);
        ctx.lineWidth = 2 * ratio;
        view().rows.forEach((row, index) => {
          const y = Math.round(u.valToPos(index, 'x', true));
          ctx.beginPath();
          ctx.moveTo(u.valToPos(row.min, 'y', true), y);
          ctx.lineTo(u.valToPos(row.max, 'y', true), y);
          ctx.stroke();
          ctx.fillText(view().formatValue(row.median), left + width + look.valueWidth * ratio, y);
        });
        ctx.restore();
      },
    },
  };
}

/**
 * The two uPlot layers of a chart of medians (layeredPlot.ts): one horizontal bar per row, rows
 * top to bottom on the category scale (uPlot's x, turned upright), values left to right from 0,
 * the row labels at the left; the spreads and values over the bars.
 */
export function medianLayers(
  size: { width: number; height: number },
  look: MedianLook,
  shown: { readonly current: MedianView | null },
): LayerOptions {
  const view = (): MedianView => shown.current as MedianView;
  const scales: uPlot.Scales = {
    // Upright, and the first row at the top, as the results table above lists them.
    x: { time: false, ori: 1, dir: -1, range: () => [-0.5, view().rows.length - 0.5] },
    y: { ori: 0, dir: 1, range: () => [0, view().scale] },
  };
  const padding: uPlot.Padding = [0, look.valueWidth, 0, 0];
  const axes = axesLayer({
    ...size,
    padding,
    scales,
    axes: [
      {
        ...axisLook(look.palette),
        grid: { show: false },
        scale: 'x',
        side: 3,
        size: look.labelWidth,
        splits: () => view().rows.map((_, index) => index),
        values: (_u, splits) => splits.map((index) => view().rows[index]?.label ?? ''),
        gap: 8,
      },
      { scale: 'y', show: false },
    ],
  });
  const barPx = BAR_PX / MEDIAN_ROW_PX;
  const series = seriesLayer({
    ...size,
    padding: [0, look.valueWidth, 0, look.labelWidth],
    scales,
    series: [
      {},
      {
        label: 'median',
        fill: look.palette.resolve(look.barColor),
        stroke: look.palette.resolve(look.barColor),
        alpha: 0.7,
        width: 0,
        paths: uPlot.paths.bars?.({ size: [barPx, BAR_PX], align: 0, radius: 3 / BAR_PX }),
        points: { show: false },
      },
    ],
    cursor: { show: false },
    plugins: [spreadsAndValues(view, look)],
  });
  return { axes, series };
}
