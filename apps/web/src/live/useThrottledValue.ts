import { useRef } from 'react';

/** A throttled value as shown, and when it was taken (Date.now()). */
export interface Shown<T> {
  value: T;
  at: number;
}

/**
 * What to show now: `value` once `intervalMs` has passed since the shown value was taken, unless
 * it is the same as the shown one (`same`): then the shown one stays, identity included, so a
 * memoized view does not redraw the same picture, and the next different value is taken at once.
 */
export function nextShown<T>(
  shown: Shown<T>,
  value: T,
  now: number,
  intervalMs: number,
  same: (a: T, b: T) => boolean,
): Shown<T> {
  if (now - shown.at < intervalMs || same(shown.value, value)) return shown;
  return { value, at: now };
}

/**
 * Returns `value`, but a new one at most every `intervalMs`: for views that are costly to redraw
 * and do not need every frame (the read-size histogram).
 */
export function useThrottledValue<T>(value: T, intervalMs: number, same: (a: T, b: T) => boolean = Object.is): T {
  const shown = useRef<Shown<T>>({ value, at: 0 });
  shown.current = nextShown(shown.current, value, Date.now(), intervalMs, same);
  return shown.current.value;
}
