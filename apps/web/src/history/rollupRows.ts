import type { BucketRow } from '@aioscope/core';
import type { RollupPoint } from '@aioscope/spec';

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

/** Bytes per read of a step from either source; null when no read was counted. */
export function bytesPerRead(bytes: number, reads: number): number | null {
  return reads > 0 ? bytes / reads : null;
}

/** io worker busy share of a step (workerBusy.ts's definition: busy samples over samples). */
export function busyShareOf(point: RollupPoint): number | null {
  return point.workerSamples > 0 ? point.workerBusy / point.workerSamples : null;
}
