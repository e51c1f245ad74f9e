import { useCallback, useEffect, useRef, useState } from 'react';
import { formatLocation, parseLocation, type ViewLocation } from './timeView.ts';

/**
 * A new location, or one made from the newest: the URL's, which may be ahead of the render (a
 * replay tick's move not yet drawn when the person clicks a step).
 */
export type LocationUpdate = (
  next: ViewLocation | ((newest: ViewLocation) => ViewLocation),
  how?: 'push' | 'replace',
) => void;

/**
 * The view (target, time, selection) held in the URL: a change the person makes on purpose
 * (a range, live, a marker) is a history entry the Back button returns from; a moving moment
 * (replay, scrubbing) replaces the entry instead of flooding the history.
 */
export function useViewLocation(): [ViewLocation, LocationUpdate] {
  const [location, setLocation] = useState<ViewLocation>(() =>
    parseLocation(window.location.search, window.location.pathname),
  );
  const newest = useRef(location);
  useEffect(() => {
    const onPop = (): void => {
      newest.current = parseLocation(window.location.search, window.location.pathname);
      setLocation(newest.current);
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const update = useCallback<LocationUpdate>((next, how = 'push') => {
    const value = typeof next === 'function' ? next(newest.current) : next;
    if (value === newest.current) return;
    newest.current = value;
    const url = `${formatLocation(value)}${window.location.hash}`;
    if (how === 'push') window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
    setLocation(value);
  }, []);
  return [location, update];
}
