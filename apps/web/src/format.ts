/**
 * Between a number and its unit: a no-break space, so a narrow screen never wraps "126.6" away
 * from its "kB" (e2e/narrow.e2e.test.ts checks every figure at 420 px).
 */
export const UNIT_SPACE = '\u00a0';

/** Binary units, as PostgreSQL prints sizes (128kB = 131072 bytes). */
export function formatBytes(bytes: number | null | undefined, digits = 1): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(digits);
  return `${shown}${UNIT_SPACE}${units[unit]}`;
}

export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '–';
  return `${(fraction * 100).toFixed(fraction < 0.1 && fraction > 0 ? 1 : 0)}${UNIT_SPACE}%`;
}

export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}${UNIT_SPACE}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}${UNIT_SPACE}s`;
  return `${Math.round(ms / 60_000)}${UNIT_SPACE}min`;
}

/** Axis tick: seconds relative to now (or to a replayed moment), e.g. "-30 s". */
export function formatRelativeSeconds(t: number, now: number, zero = 'now'): string {
  const seconds = Math.round((t - now) / 1000);
  return seconds === 0 ? zero : `${seconds}${UNIT_SPACE}s`;
}

/** A moment as the clock on the wall shows it, 24-hour: "20:31:33". */
export function formatClockTime(t: number): string {
  return new Date(t).toLocaleTimeString([], { hour12: false });
}
