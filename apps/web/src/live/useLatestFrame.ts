import { useMemo, useSyncExternalStore } from 'react';
import type { LiveFrame } from '@aioscope/spec';
import type { LiveStore } from './liveStore.ts';
import { samplePaintClock } from './samplePaintClock.ts';

/**
 * How often the "now" figures change: 4 times a second. A number read by a person needs no more
 * (at 20 Hz it flickers past unread), and every change of their text costs the page a style
 * recalculation, a layout and a repaint of its panel in the page's next frame; the per-sample strip beside them
 * still draws every sample as it comes.
 */
export const NOW_FIGURES_INTERVAL_MS = 250;

/**
 * The newest frame, re-rendering the caller at a draw of the per-sample strip (samplePaintClock.ts)
 * at most once per NOW_FIGURES_INTERVAL_MS: for the "now" figures, while the panels around them
 * follow the chart buckets. Between two of its renders the caller keeps the frame it last showed,
 * whatever else renders it.
 */
export function useLatestFrame(store: LiveStore): LiveFrame | undefined {
  const paced = useMemo(() => pacedLatestFrame(store), [store]);
  return useSyncExternalStore(paced.subscribe, paced.snapshot);
}

/** The store's newest frame as of the last paced draw: what the "now" figures show until the next. */
function pacedLatestFrame(store: LiveStore): {
  subscribe: (notify: () => void) => () => void;
  snapshot: () => LiveFrame | undefined;
} {
  let shown = store.latestFrame();
  return {
    subscribe: (notify) =>
      samplePaintClock(store).subscribe(() => {
        shown = store.latestFrame();
        notify();
      }, NOW_FIGURES_INTERVAL_MS),
    snapshot: () => shown,
  };
}
