import type uPlot from 'uplot';

/** Canvas text of every live chart: the size of the page's small print. */
export const PLOT_FONT = '11px system-ui, sans-serif';
/** Width of the y axis (values, gap and the rotated label): equal on every chart so plots line up. */
const Y_AXIS_VALUES_PX = 50;
const Y_AXIS_LABEL_PX = 14;
export const Y_AXIS_PX = Y_AXIS_VALUES_PX + Y_AXIS_LABEL_PX;

const colorCache = new Map<string, string>();
let colorTheme: string | undefined;

/**
 * Resolves `var(--name)` against the page's current theme (a canvas cannot take CSS variables),
 * cached until the theme changes.
 */
export function resolveColor(color: string, styles: CSSStyleDeclaration): string {
  const theme = document.documentElement.dataset.theme;
  if (theme !== colorTheme) {
    colorCache.clear();
    colorTheme = theme;
  }
  const cached = colorCache.get(color);
  if (cached !== undefined) return cached;
  const match = /^var\((--[\w-]+)\)$/.exec(color);
  const resolved = match === null ? color : styles.getPropertyValue(match[1] ?? '').trim() || '#888';
  colorCache.set(color, resolved);
  return resolved;
}

export interface PlotPalette {
  muted: string;
  grid: string;
  reference: string;
  resolve: (color: string) => string;
}

/** The theme's chart colours as the canvas needs them, read when a plot is built. */
export function plotPalette(element: Element): PlotPalette {
  const styles = getComputedStyle(element);
  const resolve = (color: string): string => resolveColor(color, styles);
  return {
    muted: resolve('var(--muted)'),
    grid: resolve('var(--grid)'),
    reference: resolve('var(--reference)'),
    resolve,
  };
}

/** Axis look shared by the live charts: muted labels, dashed grid, no tick marks. */
export function axisLook(palette: PlotPalette): Pick<uPlot.Axis, 'font' | 'labelFont' | 'stroke' | 'grid' | 'ticks'> {
  return {
    font: PLOT_FONT,
    labelFont: PLOT_FONT,
    stroke: palette.muted,
    grid: { stroke: palette.grid, width: 1, dash: [2, 4] },
    ticks: { show: false },
  };
}

/** The left axis: fixed width, so the plots of stacked charts start at the same x. */
export function yAxis(palette: PlotPalette, label: string, axis: uPlot.Axis): uPlot.Axis {
  return {
    ...axisLook(palette),
    scale: 'y',
    side: 3,
    size: Y_AXIS_VALUES_PX,
    gap: 6,
    label,
    labelSize: Y_AXIS_LABEL_PX,
    labelGap: 0,
    ...axis,
  };
}
