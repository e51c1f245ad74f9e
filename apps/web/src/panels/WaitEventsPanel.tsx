import { useMemo, useState, type ReactNode } from 'react';
import { bucketize, type BucketRow } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { SeriesColors } from '../charts/seriesColors.ts';
import { formatNumber } from '../format.ts';
import { ioMethodOfTarget, waitEventsCaption } from './ioMethodView.ts';
import { EmptyState, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';
import { useWindowText } from '../history/windowText.ts';

/** Idle io workers wait in IoWorkerMain: shown only on request, they would drown the rest. */
const IDLE_WAIT = 'io worker:IoWorkerMain';

export interface WaitEventsPanelProps {
  frames: readonly LiveFrame[];
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
}

export function WaitEventsPanel({ frames, domain, bucketMs, target }: WaitEventsPanelProps): ReactNode {
  const windowText = useWindowText();
  const keys = useMemo(() => {
    const seen = new Set<string>();
    for (const frame of frames) for (const key of Object.keys(frame.waits)) if (key !== IDLE_WAIT) seen.add(key);
    return [...seen].sort();
  }, [frames]);
  // Colours by meaning: a wait event keeps its colour when others appear or leave the window.
  const [colors] = useState(() => new SeriesColors());
  const series: Series[] = useMemo(
    () => keys.map((key) => ({ key, label: key.replace(':', ' · '), color: colors.colorOf(key) })),
    [keys, colors],
  );
  const rows: BucketRow[] = useMemo(() => {
    const empty = Object.fromEntries(keys.map((key) => [key, null])) as Record<string, null>;
    return bucketize(frames, {
      fromT: domain[0],
      toT: domain[1],
      bucketMs,
      reduce: (bucket) =>
        Object.fromEntries(
          keys.map((key) => [key, bucket.reduce((sum, frame) => sum + (frame.waits[key] ?? 0), 0) / bucket.length]),
        ),
      empty,
    });
  }, [frames, domain, bucketMs, keys]);
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
          formatY={(value) => formatNumber(value, 1)}
          height={220}
        />
      )}
      <p className="caveat" data-testid="wait-events-caption">
        {waitEventsCaption(ioMethodOfTarget(target))}
      </p>
    </Panel>
  );
}
