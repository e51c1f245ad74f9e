import type { Page } from 'playwright-core';

/**
 * What the charts on a page have drawn, read from pixels: the canvases themselves, or a
 * screenshot read back in the page. The scripts run in the browser and are written as text
 * (this project's e2e code is typed for Node, not the DOM).
 */

export type Rgb = [number, number, number];

/** A chart's box in page coordinates (CSS pixels). */
export interface ChartBox {
  label: string;
  kind: 'uplot' | 'histogram';
  x: number;
  y: number;
  width: number;
  height: number;
}

const run = <T>(page: Page, script: string, argument: unknown): Promise<T> =>
  page.evaluate(`(${script})(${JSON.stringify(argument)})`) as Promise<T>;

const CHART_BOXES = `() => {
  const box = (element, kind) => {
    const rect = element.getBoundingClientRect();
    return { label: element.getAttribute('aria-label') ?? '', kind, x: rect.left + scrollX, y: rect.top + scrollY,
      width: rect.width, height: rect.height };
  };
  return [
    ...[...document.querySelectorAll('.chart-plot')].map((element) => box(element, 'uplot')),
    ...[...document.querySelectorAll('[role="img"][aria-label^="histogram"]')].map((element) => box(element, 'histogram')),
  ];
}`;

/** Every live chart and the read-size histogram (all uPlot), where the page lays them out. */
export function chartBoxes(page: Page): Promise<ChartBox[]> {
  return run(page, CHART_BOXES, null);
}

const RESOLVED_COLOR = `(color) => {
  const probe = document.createElement('span');
  probe.style.color = color;
  document.body.append(probe);
  const rgb = (getComputedStyle(probe).color.match(/\\d+/g) ?? []).slice(0, 3).map(Number);
  probe.remove();
  return rgb;
}`;

/** A CSS colour as the page resolves it now, e.g. var(--muted) in the current theme. */
export function resolvedColor(page: Page, cssColor: string): Promise<Rgb> {
  return run(page, RESOLVED_COLOR, cssColor);
}

const INK_IN_IMAGE = `async ({ base64, boxes, background, mark }) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  context.drawImage(image, 0, 0);
  const near = (data, i, rgb, within) => [0, 1, 2].every((c) => Math.abs(data[i + c] - rgb[c]) <= within);
  return boxes.map((box) => {
    const width = Math.max(1, Math.floor(box.width));
    const height = Math.max(1, Math.floor(box.height));
    const { data } = context.getImageData(Math.floor(box.x), Math.floor(box.y), width, height);
    let ink = 0;
    let marked = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (!near(data, i, background, 12)) ink++;
      if (near(data, i, mark, 16)) marked++;
    }
    return { ink, marked, area: width * height };
  });
}`;

/**
 * Per box of a screenshot (read back in the page): pixels that differ from the background (ink)
 * and pixels close to `mark` (e.g. the histogram's bar colour).
 */
export function inkInCapture(
  page: Page,
  png: Buffer,
  boxes: ChartBox[],
  colors: { background: Rgb; mark: Rgb },
): Promise<{ ink: number; marked: number; area: number }[]> {
  return run(page, INK_IN_IMAGE, { base64: png.toString('base64'), boxes, ...colors });
}

/**
 * Pixels near `color` (opaque enough to be drawn, not blended) in one canvas of a chart: the
 * chart is the element with `selector` whose aria-label is `label` (or starts with it), the canvas
 * its first one (the axes layer) or the one it shows.
 */
const PIXELS_NEAR = `({ selector, label, prefix, shown, color, within }) => {
  const chart = [...document.querySelectorAll(selector)].find((element) => {
    const name = element.getAttribute('aria-label') ?? '';
    return prefix ? name.startsWith(label) : name === label;
  });
  const canvases = [...(chart?.querySelectorAll('canvas') ?? [])];
  const canvas = shown ? canvases.find((candidate) => candidate.checkVisibility()) : canvases[0];
  if (!canvas) return -1;
  const { data } = canvas.getContext('2d', { willReadFrequently: !shown }).getImageData(0, 0, canvas.width, canvas.height);
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] >= 160 && [0, 1, 2].every((c) => Math.abs(data[i + c] - color[c]) <= within)) count++;
  }
  return count;
}`;

/**
 * Pixels of a chart's axes layer (its first canvas, transparent where nothing is drawn: a drawn
 * pixel keeps its colour's RGB) in a colour close to `color`; -1 when the chart has no canvas.
 */
export function axisPixelsNear(page: Page, chartLabel: string, color: Rgb): Promise<number> {
  return run(page, PIXELS_NEAR, {
    selector: '.chart-plot',
    label: chartLabel,
    prefix: false,
    shown: false,
    color,
    within: 10,
  });
}

const SHOWN_CANVAS_ATTRIBUTES = `() => [...document.querySelectorAll('.chart-plot')].map((plot) => {
  const canvas = [...plot.querySelectorAll('canvas')].find((candidate) => candidate.checkVisibility());
  return { label: plot.getAttribute('aria-label') ?? '', desynchronized: canvas?.getContext('2d').getContextAttributes().desynchronized ?? null };
})`;

/** Per live chart: whether the canvas it shows draws outside the page's animation frames (null: none shown). */
export function shownCanvasDesynchronized(page: Page): Promise<{ label: string; desynchronized: boolean | null }[]> {
  return run(page, SHOWN_CANVAS_ATTRIBUTES, null);
}

/**
 * Pixels close to `color` in the canvas a chart shows (its label starting with `labelStart`), e.g.
 * the histogram's bars; -1 before the chart has a canvas (its chunk not loaded yet).
 */
export function shownPixelsNear(page: Page, labelStart: string, color: Rgb): Promise<number> {
  return run(page, PIXELS_NEAR, {
    selector: '[role="img"]',
    label: labelStart,
    prefix: true,
    shown: true,
    color,
    within: 16,
  });
}

/** Resolves after the page's next animation frame. */
export function nextAnimationFrame(page: Page): Promise<unknown> {
  return page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
}
