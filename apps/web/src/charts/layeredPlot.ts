import uPlot from 'uplot';
import { withContextAttributes } from './contextAttributes.ts';

export interface LayerOptions {
  /** Grid, axis values and labels, reference lines: no series, no cursor. */
  axes: uPlot.Options;
  /** The series, uPlot's cursor and selection; no axes (padding keeps the same plot area). */
  series: uPlot.Options;
}

/**
 * The shown canvas is desynchronized: Chromium hands its drawings to the compositor on their own,
 * not through the page's rendering updates, so the strip's drawing in a task (samplePaintClock.ts)
 * needs none. A synchronized canvas rides in the commit of every paint of the page, changed or
 * not: measured when the "now" figures asked for 20 paints a second, in a trace of the
 * live page (software-rendered Chromium, 20 Hz), the commit fell from 2.2 to 0.7 ms a paint and
 * the main thread from 18.6–18.9 % busy to 14.1–15.3 %. Browsers without the hint ignore it.
 */
const SHOWN_CANVAS: CanvasRenderingContext2DSettings = { desynchronized: true };

const NO_SELECTION: uPlot.Select = { show: false, left: 0, top: 0, width: 0, height: 0 };

/** Options of an axes layer: no legend, cursor or selection, and no series (it is never given data). */
export function axesLayer(options: Omit<uPlot.Options, 'series'>): uPlot.Options {
  return {
    legend: { show: false },
    cursor: { show: false },
    select: NO_SELECTION,
    ...options,
    series: [{}],
    class: 'chart-axes-layer',
  };
}

/**
 * Options of a series layer: no legend and no axes; `padding` must add the axes layer's axis
 * sizes to its padding, so both layers have the same plot area.
 */
export function seriesLayer(options: uPlot.Options): uPlot.Options {
  return {
    legend: { show: false },
    select: NO_SELECTION,
    ...options,
    axes: [{ show: false }, { show: false }],
    class: 'chart-series-layer',
  };
}

/** What to draw at one update. */
export interface PlotContent {
  data: uPlot.AlignedData;
  /** Everything the axes layer shows (scale limits, tick labels, marks): it redraws when this changes. */
  axesKey: string;
}

/**
 * A chart as two uPlots in one element. uPlot redraws a whole canvas at every setData, and the
 * axes (text and dashed grid, costly on a software-rendered canvas) would then be redrawn at every
 * chart bucket and every strip sample, although they change only with the y scale, the size or the
 * theme. Here the axes layer redraws only when its key changes; the series layer gets every update
 * and starts each drawing with a copy of the axes layer's canvas, so only the series canvas is
 * shown (charts.css hides the axes layer). One canvas per chart on the page, not two: Chromium
 * hands every canvas on the page (changed or not, on screen or not) and the element over it to
 * the compositor at every animation tick, which the per-sample strip asks for 20 times a second;
 * two canvases per chart cost the page's main thread more than drawing the charts did.
 */
export class LayeredPlot {
  private readonly axes: uPlot;
  private readonly series: uPlot;
  private axesKey: string;

  constructor(element: HTMLElement, options: LayerOptions, content: PlotContent) {
    this.axes = new uPlot(options.axes, [[]], element);
    // Both layers commit their drawing in a microtask, the axes layer first (built, resized and
    // redrawn first): the copy below always takes its current drawing.
    const axesCanvas = this.axes.ctx.canvas;
    const copyAxes = (u: uPlot): void => u.ctx.drawImage(axesCanvas, 0, 0);
    const hooks = options.series.hooks ?? {};
    this.series = withContextAttributes(
      SHOWN_CANVAS,
      () =>
        new uPlot(
          { ...options.series, hooks: { ...hooks, drawClear: [copyAxes, ...(hooks.drawClear ?? [])] } },
          content.data,
          element,
        ),
    );
    this.axesKey = content.axesKey;
  }

  get width(): number {
    return this.series.width;
  }

  get height(): number {
    return this.series.height;
  }

  setSize(size: { width: number; height: number }): void {
    this.axes.setSize(size);
    this.series.setSize(size);
  }

  draw(content: PlotContent): void {
    if (content.axesKey !== this.axesKey) {
      this.axesKey = content.axesKey;
      // The axes layer has no data: its scales come from their range functions, re-run here.
      for (const key of Object.keys(this.axes.scales)) this.axes.setScale(key, { min: 0, max: 1 });
      this.axes.redraw(false, true);
    }
    this.series.setData(content.data);
  }

  /**
   * Puts the series layer's cursor (and its readout) on the data point at `x`, as hovering there
   * would: the keyboard's way to read a chart. null takes it away.
   */
  pointAt(x: number | null): void {
    if (x === null) {
      this.series.setCursor({ left: -10, top: -10 });
      return;
    }
    this.series.setCursor({ left: this.series.valToPos(x, 'x'), top: this.series.bbox.height / uPlot.pxRatio / 2 });
  }

  destroy(): void {
    this.series.destroy();
    this.axes.destroy();
  }
}
