import { describe, expect, it } from 'vitest';
import { raceOfFragment, urlWithRace } from './raceLocation.ts';

describe('race location', () => {
  it('reads the race from the fragment, and leaves other anchors alone', () => {
    expect(raceOfFragment('#race-k3j4h5g6f7d8')).toEqual({ race: 'k3j4h5g6f7d8' });
    expect(raceOfFragment('')).toEqual({ race: null });
    expect(raceOfFragment('#live')).toBe('other');
    // A malformed id is still the race asked for: the server names what is wrong with it.
    expect(raceOfFragment('#race-NOPE')).toEqual({ race: 'NOPE' });
  });

  it('keeps the path and the time view’s query when it adds or removes the race', () => {
    const at = { pathname: '/t/embedded', search: '?from=1&to=2' };
    expect(urlWithRace(at, 'k3j4h5g6f7d8')).toBe('/t/embedded?from=1&to=2#race-k3j4h5g6f7d8');
    expect(urlWithRace(at, null)).toBe('/t/embedded?from=1&to=2');
    expect(raceOfFragment(new URL(urlWithRace(at, 'a b'), 'http://x').hash)).toEqual({ race: 'a b' });
  });
});
