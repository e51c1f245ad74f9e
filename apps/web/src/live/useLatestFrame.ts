import { useCallback, useSyncExternalStore } from 'react';
import type { LiveFrame } from '@aioscope/spec';
import { animationThrottle } from './animationThrottle.ts';
import type { LiveStore } from './liveStore.ts';

/**
 * The newest frame, re-rendering the caller at most once per animation frame (and 25 Hz) when one arrives:
 * for the few "now" figures that should keep up with the sample rate, next to the per-sample
 * strip, while the panels around them follow the chart buckets.
 */
export function useLatestFrame(store: LiveStore): LiveFrame | undefined {
  const subscribe = useCallback(
    (notify: () => void) => {
      const throttle = animationThrottle(notify);
      // Every change, not only frames: a snapshot after a reconnect replaces the newest frame.
      const unsubscribe = store.subscribe(throttle.schedule);
      return () => {
        unsubscribe();
        throttle.cancel();
      };
    },
    [store],
  );
  return useSyncExternalStore(subscribe, () => store.latestFrame());
}
