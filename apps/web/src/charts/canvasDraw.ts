import type { BucketRow } from '@aioscope/core';

/** Pure drawing helpers for the live time-series canvas; kept apart from React so they stay small. */

export interface Plot {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Round tick steps (1, 2, 5 × 10^k) covering [0, max] in about `count` steps. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let value = 0; value <= max + step * 1e-9; value += step) ticks.push(Number(value.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** Stacked values per row: for each series, [bottom, top] or null where the row has no data. */
export function stack(rows: readonly BucketRow[], keys: readonly string[]): ([number, number] | null)[][] {
  return keys.map((_, index) =>
    rows.map((row) => {
      let bottom = 0;
      for (let i = 0; i < index; i++) {
        const below = row[keys[i] ?? ''];
        if (typeof below === 'number') bottom += below;
      }
      const value = row[keys[index] ?? ''];
      return typeof value === 'number' ? [bottom, bottom + value] : null;
    }),
  );
}

const colorCache = new Map<string, string>();
let colorTheme: string | undefined;

/** Resolves `var(--name)` against the page's current theme, cached until the theme changes. */
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

/**
 * Sizes a canvas's bitmap to `width` × `height` CSS pixels at the device pixel ratio, only when
 * that changes (assigning width or height reallocates and clears the bitmap, which showed up in the
 * browser profile when done on every redraw), and returns a cleared 2D context in CSS pixels.
 */
export function prepareCanvas(
  element: HTMLCanvasElement,
  width: number,
  height: number,
): CanvasRenderingContext2D | null {
  const ratio = window.devicePixelRatio || 1;
  const pixelWidth = Math.round(width * ratio);
  const pixelHeight = Math.round(height * ratio);
  if (element.width !== pixelWidth) element.width = pixelWidth;
  if (element.height !== pixelHeight) element.height = pixelHeight;
  const context = element.getContext('2d');
  if (context === null) return null;
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  return context;
}
