import { useCallback, useSyncExternalStore } from 'react';
import type { LiveFrame } from '@aioscope/spec';
import type { LiveStore } from './liveStore.ts';
import { samplePaintClock } from './samplePaintClock.ts';

/**
 * The newest frame, re-rendering the caller at most once per animation tick (and 25 Hz) when one arrives:
 * for the few "now" figures that should keep up with the sample rate, next to the per-sample
 * strip (drawn in the same tick: samplePaintClock.ts), while the panels around them follow the
 * chart buckets.
 */
export function useLatestFrame(store: LiveStore): LiveFrame | undefined {
  const subscribe = useCallback((notify: () => void) => samplePaintClock(store).subscribe(notify), [store]);
  return useSyncExternalStore(subscribe, () => store.latestFrame());
}
