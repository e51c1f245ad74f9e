/** Small, dependency-free statistics for benchmark samples. */

export function sorted(values: readonly number[]): number[] {
  return [...values].filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
}

/** Linear-interpolated quantile, q in [0, 1]; NaN for an empty sample. */
export function quantile(values: readonly number[], q: number): number {
  const s = sorted(values);
  if (s.length === 0) return Number.NaN;
  const position = (s.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = s[lower] ?? Number.NaN;
  const b = s[upper] ?? Number.NaN;
  return a + (b - a) * (position - lower);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export function min(values: readonly number[]): number {
  const s = sorted(values);
  return s[0] ?? Number.NaN;
}

export function max(values: readonly number[]): number {
  const s = sorted(values);
  return s[s.length - 1] ?? Number.NaN;
}

export function mean(values: readonly number[]): number {
  const s = sorted(values);
  return s.length === 0 ? Number.NaN : s.reduce((sum, value) => sum + value, 0) / s.length;
}

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  return { n: sorted(values).length, median: median(values), min: min(values), max: max(values) };
}

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  return {
    n: sorted(values).length,
    p50: quantile(values, 0.5),
    p95: quantile(values, 0.95),
    p99: quantile(values, 0.99),
    max: max(values),
  };
}

/** A number for a table cell: fixed decimals, "–" for NaN. */
export function fmt(value: number, decimals = 1): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : '–';
}

/** "median (min–max)". */
export function fmtSummary(summary: Summary, decimals = 1): string {
  return `${fmt(summary.median, decimals)} (${fmt(summary.min, decimals)}–${fmt(summary.max, decimals)})`;
}
