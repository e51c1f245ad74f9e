import { bucketValues, lineColorSlot, lineKey, type SeriesLine } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import type { Series } from './TimeSeriesChart.tsx';
import type { BucketReducer } from './useBucketRows.ts';

/** A line as the chart's series: its row key, legend and colour from core's SERIES description. */
export function chartSeries(line: SeriesLine, label: string = line.series.label): Series {
  return { key: lineKey(line), label, color: `var(--series-${lineColorSlot(line)})` };
}

/**
 * A bucket reducer of live frames for some lines, computed as core's SERIES says (so the live
 * chart and the roll-ups of the same samples agree). Build it once (a module constant or a memo):
 * useBucketRows starts over on a new reducer.
 */
export function seriesReducer(lines: readonly SeriesLine[]): BucketReducer<LiveFrame> {
  const empty = Object.fromEntries(lines.map((line) => [lineKey(line), null])) as Record<string, null>;
  return { reduce: (frames) => bucketValues(lines, { frames, deltas: [] }), empty };
}
