import { useRef } from 'react';

/**
 * Returns `value`, but a new one at most every `intervalMs`: for views that are costly to redraw
 * and do not need every frame (the SVG histogram).
 */
export function useThrottledValue<T>(value: T, intervalMs: number): T {
  const shown = useRef<{ value: T; at: number }>({ value, at: 0 });
  const now = Date.now();
  if (now - shown.current.at >= intervalMs) shown.current = { value, at: now };
  return shown.current.value;
}
