import { useMemo, useState, type ReactNode } from 'react';
import type { BucketRow } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { SeriesColors } from '../charts/seriesColors.ts';
import { useBucketRows, type BucketReducer } from '../charts/useBucketRows.ts';
import { formatNumber } from '../format.ts';
import { ioMethodOfTarget, waitEventsCaption } from './ioMethodView.ts';
import { EmptyState, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';
import { useWindowText } from '../timeline/windowText.ts';

/** Idle io workers wait in IoWorkerMain: shown only on request, they would drown the rest. */
const IDLE_WAIT = 'io worker:IoWorkerMain';

/** A row's count of samples: not a wait event, never drawn. */
const SAMPLES = 'samples';

/**
 * Per bucket: mean processes waiting per wait event seen in it, and its number of samples. Every
 * event seen in the bucket, so a bucket is reduced once whatever appears in the window later.
 */
const WAITS_REDUCER: BucketReducer<LiveFrame> = {
  reduce: (bucket) => {
    const sums: Record<string, number> = {};
    for (const frame of bucket) {
      for (const [key, count] of Object.entries(frame.waits))
        if (key !== IDLE_WAIT) sums[key] = (sums[key] ?? 0) + count;
    }
    const means: Record<string, number | null> = { [SAMPLES]: bucket.length };
    for (const [key, sum] of Object.entries(sums)) means[key] = sum / bucket.length;
    return means;
  },
  empty: { [SAMPLES]: null },
};
const formatProcesses = (value: number): string => formatNumber(value, 1);

/** The wait events of any bucket, sorted; an event missing from a bucket with samples had 0 processes there. */
function waitRows(buckets: readonly BucketRow[]): { keys: string[]; rows: BucketRow[] } {
  const seen = new Set<string>();
  for (const row of buckets) for (const key of Object.keys(row)) if (key !== 't' && key !== SAMPLES) seen.add(key);
  const keys = [...seen].sort();
  const rows = buckets.map((row) => {
    const filled: BucketRow = { t: row.t };
    const absent = row[SAMPLES] === null ? null : 0;
    for (const key of keys) filled[key] = row[key] ?? absent;
    return filled;
  });
  return { keys, rows };
}

export interface WaitEventsPanelProps {
  frames: readonly LiveFrame[];
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
}

export function WaitEventsPanel({ frames, domain, bucketMs, target }: WaitEventsPanelProps): ReactNode {
  const windowText = useWindowText();
  const buckets = useBucketRows(frames, domain, bucketMs, WAITS_REDUCER);
  const { keys, rows } = useMemo(() => waitRows(buckets), [buckets]);
  // Colours by meaning: a wait event keeps its colour when others appear or leave the window.
  const [colors] = useState(() => new SeriesColors());
  const series: Series[] = useMemo(
    () => keys.map((key) => ({ key, label: key.replace(':', ' · '), color: colors.colorOf(key) })),
    [keys, colors],
  );
  return (
    <Panel
      title="Wait events of processes doing I/O"
      testId="panel-waits"
      source={`pg_stat_activity wait_event of io workers, processes with reads in flight and AIO waits, by backend type, sampled at ${target?.sampleRateHz ?? 0} Hz · chart: mean processes waiting per ${bucketMs} ms`}
    >
      {keys.length === 0 ? (
        <EmptyState>
          {refusedReason(target, 'Not sampled') ??
            'No process waited on I/O in the window (idle io workers in IoWorkerMain are not drawn).'}
        </EmptyState>
      ) : (
        <TimeSeriesChart
          ariaLabel={`AIO-related wait events over ${windowText.spoken}`}
          rows={rows}
          series={series}
          kind="stackedArea"
          domain={domain}
          yLabel="processes"
          formatY={formatProcesses}
          height={220}
        />
      )}
      <p className="caveat" data-testid="wait-events-caption">
        {waitEventsCaption(ioMethodOfTarget(target))}
      </p>
    </Panel>
  );
}
