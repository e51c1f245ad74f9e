import { lineKey, rollupValues, type BucketRow, type SeriesLine } from '@aioscope/core';
import type { HistoryRollups, RollupPoint } from '@aioscope/spec';

/**
 * Roll-up points as chart rows: one row per step across [from, to), a step without samples as a
 * row of nulls (a gap on the chart, never a zero), each series a value per step.
 */
export function rollupRows(
  points: readonly RollupPoint[],
  from: number,
  to: number,
  stepMs: number,
  values: (point: RollupPoint) => Record<string, number | null>,
  keys: readonly string[],
): BucketRow[] {
  const byStep = new Map(points.map((point) => [point.t, point]));
  const empty = Object.fromEntries(keys.map((key) => [key, null])) as Record<string, null>;
  const rows: BucketRow[] = [];
  for (let t = Math.floor(from / stepMs) * stepMs; t < to; t += stepMs) {
    const point = byStep.get(t);
    rows.push({ t, ...(point === undefined || point.frames === 0 ? empty : values(point)) });
  }
  return rows;
}

/** The rows of some lines (core SERIES at a stat) over a roll-up answer, keyed as the live rows are. */
export function rollupLineRows(rollups: HistoryRollups, lines: readonly SeriesLine[]): BucketRow[] {
  const { points, from, to, stepMs } = rollups;
  return rollupRows(points, from, to, stepMs, (point) => rollupValues(lines, point), lines.map(lineKey));
}
