import type { BucketRow } from '@aioscope/core';
import { niceTicks } from './ticks.ts';

/**
 * Pure shaping of chart data into uPlot's column layout (one x array, one array per series; null
 * draws a gap). The arrays are reused from one update to the next: the charts redraw twice a
 * second and the strip at every sample, and fresh arrays each time are garbage for nothing.
 */
export interface Columns {
  x: number[];
  ys: (number | null)[][];
}

export function emptyColumns(seriesCount: number): Columns {
  return { x: [], ys: Array.from({ length: seriesCount }, () => []) };
}

/**
 * Bucket rows as columns, x at the middle of each bucket (where a line's point belongs and a bar
 * centred on it covers its bucket). Stacked: each series holds the running total up to itself, so
 * a bar spans from the series below to its own value; a bucket without a value stays a gap.
 */
export function fillBucketColumns(
  into: Columns,
  rows: readonly BucketRow[],
  keys: readonly string[],
  bucketMs: number,
  stacked: boolean,
): Columns {
  into.x.length = rows.length;
  while (into.ys.length < keys.length) into.ys.push([]);
  into.ys.length = keys.length;
  for (const column of into.ys) column.length = rows.length;
  rows.forEach((row, i) => {
    into.x[i] = row.t + bucketMs / 2;
    let total = 0;
    keys.forEach((key, k) => {
      const value = row[key];
      const column = into.ys[k] as (number | null)[];
      if (typeof value !== 'number') {
        column[i] = null;
        return;
      }
      total = stacked ? total + value : value;
      column[i] = total;
    });
  });
  return into;
}

export interface YAxis {
  min: number;
  max: number;
  ticks: number[];
}

/**
 * The y scale of a bucket chart: explicit ticks or limits when the caller has them, else round
 * ticks over the data and the reference lines.
 */
export function yAxisFor(
  columns: Columns,
  options: {
    yDomain: readonly [number | 'auto', number | 'auto'];
    yTicks?: readonly number[];
    references: readonly { y: number }[];
  },
): YAxis {
  const { yDomain, yTicks, references } = options;
  // Stacked columns hold running totals, so the largest value of any column is the tallest stack.
  let dataMax = 0;
  for (const column of columns.ys) {
    for (const value of column) if (value !== null && value > dataMax) dataMax = value;
  }
  for (const mark of references) dataMax = Math.max(dataMax, mark.y);
  const ticks =
    yTicks !== undefined ? [...yTicks] : niceTicks(typeof yDomain[1] === 'number' ? yDomain[1] : dataMax * 1.05 || 1);
  const min = typeof yDomain[0] === 'number' ? yDomain[0] : 0;
  const max = typeof yDomain[1] === 'number' ? yDomain[1] : Math.max(ticks[ticks.length - 1] ?? 1, 1e-9);
  return { min, max, ticks };
}

export interface StripColumns {
  x: number[];
  y: (number | null)[];
}

export interface StripSummary {
  /** Samples in the window (a hold or a gap marker is not a sample). */
  samples: number;
  /** Largest value in the window, 0 without any. */
  max: number;
}

/**
 * Every sample from `fromT` on, as steps: a sample holds until the next one. The newest holds for
 * one sample interval, not up to "now" (a sampler that stopped shows as a gap); a silence longer
 * than 2.5 intervals (a restart, skipped ticks in a row) ends the previous sample's hold after one
 * interval and breaks the line; a sample without a value (no pg_aios) is a gap.
 */
export function fillStripColumns<T extends { t: number }>(
  into: StripColumns,
  samples: readonly T[],
  value: (sample: T) => number | null,
  options: { fromT: number; sampleIntervalMs: number },
): StripSummary {
  const { fromT, sampleIntervalMs } = options;
  const gapMs = 2.5 * sampleIntervalMs;
  into.x.length = 0;
  into.y.length = 0;
  let first = samples.length;
  while (first > 0 && (samples[first - 1] as T).t >= fromT) first--;
  let max = 0;
  let previous: { t: number; v: number } | null = null;
  for (let i = first; i < samples.length; i++) {
    const sample = samples[i] as T;
    const v = value(sample);
    if (v === null) {
      into.x.push(sample.t);
      into.y.push(null);
      previous = null;
      continue;
    }
    if (previous !== null && sample.t - previous.t > gapMs) {
      const holdEnd = previous.t + sampleIntervalMs;
      into.x.push(holdEnd, (holdEnd + sample.t) / 2);
      into.y.push(previous.v, null);
    }
    into.x.push(sample.t);
    into.y.push(v);
    if (v > max) max = v;
    previous = { t: sample.t, v };
  }
  if (previous !== null) {
    into.x.push(previous.t + sampleIntervalMs);
    into.y.push(previous.v);
  }
  return { samples: samples.length - first, max };
}

/** A readout value with its unit: "4.5" → "4.5 reads"; "512 kB" and "12 %" already carry theirs. */
export function withUnit(formatted: string, unit: string): string {
  return unit !== '' && /^-?[\d.,]+$/.test(formatted) ? `${formatted} ${unit}` : formatted;
}
