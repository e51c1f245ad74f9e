/**
 * The one set of figure formatters: sizes and durations as the dashboard, the server's messages,
 * the lab's reports and the fleet's sentences write them. Styles, not copies: a caller picks how
 * a figure reads, and every figure of that kind reads the same.
 */

/**
 * Between a number and its unit on the page: a no-break space, so a narrow screen never wraps
 * "126.6" away from its "kB" (e2e/narrow.e2e.test.ts checks every figure at 420 px).
 */
export const UNIT_SPACE = '\u00a0';

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'] as const;
export type ByteUnit = (typeof BYTE_UNITS)[number];

export interface ByteStyle {
  /** Between number and unit; the page's no-break space unless said (plain text: ' '). */
  space?: string;
  /** The smallest and largest unit written (e.g. always kB). */
  from?: ByteUnit;
  upTo?: ByteUnit;
  /** Write `digits` decimals even for a whole value ("128.0 kB", as the lab's reports do). */
  keepDigits?: boolean;
}

/** Plain-text kilobytes with one decimal, the lab's reports and run lines: "123.4 kB". */
export const KILOBYTES: ByteStyle = { space: ' ', from: 'kB', upTo: 'kB', keepDigits: true };
/** A size limit in a server message: whole kB below a megabyte, whole MB above. */
export const WHOLE_MEGABYTES: ByteStyle = { space: ' ', from: 'kB', upTo: 'MB' };

/** Binary units, as PostgreSQL prints sizes (128kB = 131072 bytes); '–' for no value. */
export function formatBytes(bytes: number | null | undefined, digits = 1, style: ByteStyle = {}): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const first = BYTE_UNITS.indexOf(style.from ?? 'B');
  const last = BYTE_UNITS.indexOf(style.upTo ?? 'TB');
  let value = bytes / 1024 ** first;
  let unit = first;
  while (Math.abs(value) >= 1024 && unit < last) {
    value /= 1024;
    unit += 1;
  }
  const whole = !style.keepDigits && (unit === 0 || Number.isInteger(value));
  const shown = whole ? String(Math.round(value)) : value.toFixed(digits);
  return `${shown}${style.space ?? UNIT_SPACE}${BYTE_UNITS[unit]}`;
}

export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '–';
  return `${(fraction * 100).toFixed(fraction < 0.1 && fraction > 0 ? 1 : 0)}${UNIT_SPACE}%`;
}

export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/**
 * How a duration reads:
 * - 'age': how long ago, on the page: "450 ms", "2.5 s", "3 min" (no-break spaces);
 * - 'span': a range's length: "90 s", "15 min", "2 h 30 min";
 * - 'limit': a configured limit, in the largest unit it is a whole number of: "15 min", "1 h", "90 s".
 */
export type DurationStyle = 'age' | 'span' | 'limit';

export function formatDuration(ms: number, style: DurationStyle): string {
  switch (style) {
    case 'age':
      if (ms < 1000) return `${Math.round(ms)}${UNIT_SPACE}ms`;
      if (ms < 60_000) return `${(ms / 1000).toFixed(1)}${UNIT_SPACE}s`;
      return `${Math.round(ms / 60_000)}${UNIT_SPACE}min`;
    case 'span': {
      if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
      if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
      const hours = Math.floor(ms / 3_600_000);
      const minutes = Math.round((ms % 3_600_000) / 60_000);
      return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
    }
    case 'limit':
      if (ms >= 86_400_000 && ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
      if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
      if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
      return `${Math.round(ms / 100) / 10} s`;
  }
}
