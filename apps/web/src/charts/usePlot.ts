import { useEffect, useEffectEvent, useRef, type RefObject } from 'react';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { LayeredPlot, type LayerOptions, type PlotContent } from './layeredPlot.ts';
import { drawDue, type LastDrawing } from './drawSchedule.ts';
import type { ChartBox } from './useChartBox.ts';
import { usePrintRequests } from './usePrintRequests.ts';

export interface PlotSpec {
  /** What uPlot only takes when a plot is built (series, colours, cursor): a change rebuilds it. */
  buildKey: string;
  options: (width: number, height: number) => LayerOptions;
  /** What to draw now, called right before each draw and before `options` (it may prepare what the plot's callbacks read). */
  content: () => PlotContent;
  /** The plot redraws when one of these changes identity (off screen: every few seconds at most). */
  dataDeps: readonly unknown[];
}

interface Built {
  plot: LayeredPlot;
  key: string;
  deps: readonly unknown[];
  /** The last drawing of the series (drawSchedule.ts). */
  drawn: LastDrawing;
}

/**
 * Owns one chart's uPlots in `container`: built once the container has a width, on screen or
 * not, rebuilt at once when `spec.buildKey` changes (a theme switch, other series), resized with
 * the container, given new data with setData (no rebuild) when `spec.dataDeps` change, destroyed
 * on unmount. A chart out of view draws new data only every few seconds (drawSchedule.ts), at
 * once when it comes back into view, and at once before printing: whatever a person captures or
 * prints shows it drawn. Returns the plot for callers that draw on their own schedule (the strip).
 */
export function usePlot(
  container: RefObject<HTMLElement | null>,
  box: ChartBox,
  height: number,
  spec: PlotSpec,
): RefObject<LayeredPlot | null> {
  const plot = useRef<LayeredPlot | null>(null);
  const built = useRef<Built | null>(null);

  const printRequests = usePrintRequests();
  const printedFor = useRef(printRequests);

  const sync = useEffectEvent((): void => {
    const element = container.current;
    if (element === null) return;
    // About to print: draw now whatever the schedule says, at the width the page has now.
    const printing = printRequests !== printedFor.current;
    printedFor.current = printRequests;
    // Off screen the box is not re-measured while the page is laid out for print: measure now.
    const width = printing ? Math.floor(element.clientWidth) : box.width;
    if (width === 0) return;
    const now = Date.now();
    let current = built.current;
    if (current !== null && current.key !== spec.buildKey) {
      // A theme switch or other series: rebuilt at once, on screen or not, so that no chart keeps
      // the old theme until it is scrolled to (or captured that way).
      current.plot.destroy();
      current = null;
    }
    if (current === null) {
      // The first content comes before the options: uPlot's callbacks may read what content() prepared.
      const content = spec.content();
      const created = new LayeredPlot(element, spec.options(width, height), content);
      built.current = { plot: created, key: spec.buildKey, deps: spec.dataDeps, drawn: drawingOf(content, now) };
      plot.current = created;
      return;
    }
    // setSize and setData share one redraw: uPlot commits once per microtask.
    if (current.plot.width !== width || current.plot.height !== height) {
      current.plot.setSize({ width, height });
    }
    if (!sameItems(current.deps, spec.dataDeps) && (printing || drawDue(box.visible, current.drawn, now))) {
      const content = spec.content();
      current.deps = spec.dataDeps;
      current.drawn = drawingOf(content, now);
      current.plot.draw(content);
    }
  });

  // After every render: the comparisons above decide whether anything is drawn.
  useEffect(() => sync());
  useDestroyOnUnmount(built, plot);
  return plot;
}

/**
 * A hook of its own so that the cleanup closure, kept from the first render until unmount, shares
 * no scope with `spec`: in usePlot it would keep the first render's data (a minute of frames,
 * through the caller's closures) alive as long as the chart (seen in a heap snapshot).
 */
function useDestroyOnUnmount(built: RefObject<Built | null>, plot: RefObject<LayeredPlot | null>): void {
  useEffect(
    () => () => {
      built.current?.plot.destroy();
      built.current = null;
      plot.current = null;
    },
    [built, plot],
  );
}

/** A drawing is empty when no series has a single value (columns after x are the series). */
function drawingOf(content: PlotContent, now: number): LastDrawing {
  const empty = !content.data.slice(1).some((column) => column.some((value) => value !== null && value !== undefined));
  return { at: now, empty };
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, index) => Object.is(item, b[index]));
}
