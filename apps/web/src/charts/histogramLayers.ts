import uPlot from 'uplot';
import { formatNumber } from '../format.ts';
import { hoverReadout } from './hoverReadout.ts';
import { axesLayer, seriesLayer, type LayerOptions } from './layeredPlot.ts';
import { axisLook, PLOT_FONT, yAxis, Y_AXIS_PX, type PlotPalette } from './plotTheme.ts';
import { niceTicks } from './ticks.ts';

/** One bar: `count` items of category `x` (a whole number, e.g. blocks per read). */
export interface HistogramBin {
  x: number;
  count: number;
}

/** What the histogram shows now; its uPlot callbacks read it at each draw and hover. */
export interface HistogramView {
  bins: readonly HistogramBin[];
  /** Count axis: whole numbers from 0. */
  yTicks: number[];
  formatX: (x: number) => string;
  /** Dashed vertical lines at these x (a setting's limit). */
  marks: readonly { x: number; label: string }[];
  /** What x counts, in the readout: "16 blocks". */
  xUnit: string;
}

export interface HistogramLook {
  xLabel: string;
  yLabel: string;
  color: string;
  palette: PlotPalette;
  readout: HTMLElement | null;
}

const X_AXIS_PX = 18;
const X_LABEL_PX = 16;
/** Plot padding [top, right, bottom, left]: room for the top tick label and the last category's label. */
const PADDING: [number, number, number, number] = [16, 12, 0, 0];
/** A category label needs about this much room; fewer labels are written when bins are narrower. */
const X_LABEL_ROOM_PX = 18;
/** Bars fill 80 % of their category: neighbours stay apart, and a lone bar still reads as a bar. */
const bars = uPlot.paths.bars?.({ size: [0.8, Infinity], align: 0, gap: 0 });

/** Whole-number count ticks from 0 up to at least `max`: a count of reads has no halves. */
export function countTicks(max: number): number[] {
  if (max <= 4) return Array.from({ length: Math.max(1, Math.ceil(max)) + 1 }, (_, index) => index);
  return niceTicks(max).filter((value) => Number.isInteger(value));
}

/** Every `step`-th category from the first, so labels keep their room on a narrow plot. */
export function categoryTicks(xs: readonly number[], plotWidthPx: number): number[] {
  const fit = Math.max(1, Math.floor(plotWidthPx / X_LABEL_ROOM_PX));
  const step = Math.ceil(xs.length / fit);
  return xs.filter((_, index) => index % step === 0);
}

/** The bins as uPlot's columns. */
export function histogramData(bins: readonly HistogramBin[]): uPlot.AlignedData {
  return [bins.map((bin) => bin.x), bins.map((bin) => bin.count)];
}

/** Dashed vertical lines at the marks' x. */
function verticalMarks(marks: () => readonly { x: number }[], color: string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const ratio = uPlot.pxRatio;
        const { ctx } = u;
        const { top, height } = u.bbox;
        ctx.save();
        ctx.strokeStyle = color;
        ctx.lineWidth = ratio;
        ctx.setLineDash([4 * ratio, 4 * ratio]);
        for (const mark of marks()) {
          const x = Math.round(u.valToPos(mark.x, 'x', true)) + 0.5;
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
        }
        ctx.restore();
      },
    },
  };
}

/**
 * The two uPlot layers of a histogram (layeredPlot.ts): axes with a dashed horizontal grid, a
 * label per category where it fits, the count axis; bars over them and the marks over the bars,
 * with a readout of the bin under the cursor (or the one chosen with the arrow keys).
 */
export function histogramLayers(
  size: { width: number; height: number },
  look: HistogramLook,
  shown: { readonly current: HistogramView | null },
): LayerOptions {
  const view = (): HistogramView => shown.current as HistogramView;
  const xRange = (): uPlot.Range.MinMax => {
    const { bins } = view();
    return [(bins[0]?.x ?? 1) - 0.5, (bins[bins.length - 1]?.x ?? 1) + 0.5];
  };
  const yRange = (): uPlot.Range.MinMax => [0, view().yTicks[view().yTicks.length - 1] ?? 1];
  const { palette } = look;
  const axes = axesLayer({
    ...size,
    padding: PADDING,
    scales: { x: { time: false, range: xRange }, y: { range: yRange } },
    axes: [
      {
        ...axisLook(palette),
        grid: { show: false },
        scale: 'x',
        side: 2,
        size: X_AXIS_PX,
        gap: 4,
        label: look.xLabel,
        labelSize: X_LABEL_PX,
        labelGap: 0,
        labelFont: PLOT_FONT,
        splits: (u) =>
          categoryTicks(
            view().bins.map((bin) => bin.x),
            u.bbox.width > 0 ? u.bbox.width / uPlot.pxRatio : size.width - Y_AXIS_PX,
          ),
        values: (_u, splits) => splits.map((x) => view().formatX(x)),
      },
      yAxis(palette, look.yLabel, {
        splits: () => view().yTicks,
        values: (_u, splits) => splits.map((value) => formatNumber(value, 0)),
      }),
    ],
  });
  const color = palette.resolve(look.color);
  const series = seriesLayer({
    ...size,
    padding: [PADDING[0], PADDING[1], PADDING[2] + X_AXIS_PX + X_LABEL_PX, PADDING[3] + Y_AXIS_PX],
    scales: { x: { time: false, range: xRange }, y: { range: yRange } },
    series: [{}, { label: look.yLabel, stroke: color, fill: color, width: 0, paths: bars, points: { show: false } }],
    cursor: { x: true, y: false, points: { show: false }, drag: { x: false, y: false } },
    // The marks over the bars: a limit stays visible where the reads reach it.
    plugins: [
      verticalMarks(() => view().marks, palette.reference),
      ...(look.readout === null
        ? []
        : [
            hoverReadout(look.readout, [{ label: look.yLabel, color: look.color }], (index) => {
              const bin = view().bins[index];
              if (bin === undefined) return null;
              const x = view().formatX(bin.x);
              return { time: view().xUnit === '' ? x : `${x} ${view().xUnit}`, values: [formatNumber(bin.count, 0)] };
            }),
          ]),
    ],
  });
  return { axes, series };
}
