import { UNIT_SPACE } from '@aioscope/core';

// Sizes, shares and durations: core's one set of formatters (packages/core/src/format.ts).
export { formatBytes, formatDuration, formatNumber, formatPercent, UNIT_SPACE } from '@aioscope/core';

/** Axis tick: seconds relative to now (or to a replayed moment), e.g. "-30 s". */
export function formatRelativeSeconds(t: number, now: number, zero = 'now'): string {
  const seconds = Math.round((t - now) / 1000);
  return seconds === 0 ? zero : `${seconds}${UNIT_SPACE}s`;
}

/** A moment as the clock on the wall shows it, 24-hour: "20:31:33". */
export function formatClockTime(t: number): string {
  return new Date(t).toLocaleTimeString([], { hour12: false });
}
