import { useCallback, useEffect, useState } from 'react';

/**
 * The race on screen lives in the URL's fragment, `#race-<id>`: a place on the page (the race
 * view under the lab), so a reload or a shared link finds it again. The fragment, not the query:
 * the query holds the time view (timeline/timeView.ts), which rewrites it on every range or moment
 * and keeps the fragment as it is, so the two never undo each other.
 */
const RACE_FRAGMENT = /^#race-([^#]{1,64})$/;

/** What a fragment says about the race: an id (checked by the server, which names a bad one), none, or another anchor. */
export function raceOfFragment(hash: string): { race: string | null } | 'other' {
  if (hash === '' || hash === '#') return { race: null };
  const match = RACE_FRAGMENT.exec(hash);
  if (match?.[1] === undefined) return 'other';
  try {
    return { race: decodeURIComponent(match[1]) };
  } catch {
    return { race: match[1] };
  }
}

/** The URL with the race's fragment, or without one; path and query unchanged. */
export function urlWithRace(location: Pick<Location, 'pathname' | 'search'>, race: string | null): string {
  return `${location.pathname}${location.search}${race === null ? '' : `#race-${encodeURIComponent(race)}`}`;
}

export interface RaceLocation {
  race: string | null;
  /** The race was in the URL when the page loaded: the view scrolls to it once. */
  fromLoad: boolean;
  /** Shows a race (a history entry, so Back returns to what was shown before), or none. */
  show(race: string | null): void;
}

export function useRaceLocation(): RaceLocation {
  const [initial] = useState(() => raceOfFragment(window.location.hash));
  const [race, setRace] = useState<string | null>(initial === 'other' ? null : initial.race);
  useEffect(() => {
    // Back, Forward, or an edited address. Another anchor (the skip link's #live) leaves the race shown.
    const follow = (): void => {
      const next = raceOfFragment(window.location.hash);
      if (next !== 'other') setRace(next.race);
    };
    window.addEventListener('popstate', follow);
    window.addEventListener('hashchange', follow);
    return () => {
      window.removeEventListener('popstate', follow);
      window.removeEventListener('hashchange', follow);
    };
  }, []);
  const show = useCallback((next: string | null) => {
    const url = urlWithRace(window.location, next);
    if (url !== `${window.location.pathname}${window.location.search}${window.location.hash}`) {
      window.history.pushState(null, '', url);
    }
    setRace(next);
  }, []);
  return { race, fromLoad: initial !== 'other' && initial.race !== null, show };
}
