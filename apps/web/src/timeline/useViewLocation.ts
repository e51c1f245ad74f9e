import { useCallback, useEffect, useState } from 'react';
import { formatLocation, parseLocation, type ViewLocation } from './timeView.ts';

export type LocationUpdate = (next: ViewLocation, how?: 'push' | 'replace') => void;

/**
 * The view (target, time, selection) held in the URL: a change the person makes on purpose
 * (a range, live, a marker) is a history entry the Back button returns from; a moving moment
 * (replay, scrubbing) replaces the entry instead of flooding the history.
 */
export function useViewLocation(): [ViewLocation, LocationUpdate] {
  const [location, setLocation] = useState<ViewLocation>(() =>
    parseLocation(window.location.search, window.location.pathname),
  );
  useEffect(() => {
    const onPop = (): void => setLocation(parseLocation(window.location.search, window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const update = useCallback<LocationUpdate>((next, how = 'push') => {
    const url = `${formatLocation(next)}${window.location.hash}`;
    if (how === 'push') window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
    setLocation(next);
  }, []);
  return [location, update];
}
