/**
 * When a chart draws. On screen (or near it): at every update. Off screen: at most every
 * OFF_SCREEN_REDRAW_MS, a tenth of the live rate (charts update once per 500 ms bucket), so the
 * page keeps most of the saving while a full-page capture, which never scrolls the chart into
 * view, still shows it drawn and at most a few seconds old. A chart whose last drawing had no data
 * draws its first data at once: a capture must not show it empty next to figures that have some.
 * A theme switch, coming into view and printing draw at once whatever this says (usePlot,
 * HistogramChart).
 */
export const OFF_SCREEN_REDRAW_MS = 5_000;

export interface LastDrawing {
  /** Date.now() of the last drawing; null before the first. */
  at: number | null;
  /** The last drawing showed no data at all (an empty window, a chart built before the first sample). */
  empty: boolean;
}

export function drawDue(visible: boolean, last: LastDrawing, now: number): boolean {
  return visible || last.at === null || last.empty || now - last.at >= OFF_SCREEN_REDRAW_MS;
}
