import { memo, useMemo, type ReactNode } from 'react';
import { bucketValues, lineKey, SERIES, type IoMethod, type LiveWindowSummary, type SeriesLine } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { LiveSampleStrip } from '../charts/LiveSampleStrip.tsx';
import { chartSeries } from '../charts/seriesLines.ts';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { byteTicks } from '../charts/ticks.ts';
import { useBucketRows, type BucketReducer } from '../charts/useBucketRows.ts';
import { formatBytes, formatNumber } from '../format.ts';
import type { LiveStore } from '../live/liveStore.ts';
import { NOW_FIGURES_INTERVAL_MS, useLatestFrame } from '../live/useLatestFrame.ts';
import { inflightStateSeries, ioMethodOfTarget, showsWorkerFigures, type StateSeries } from './ioMethodView.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';
import { capitalize, LIVE_WINDOW_TEXT, useWindowText } from '../timeline/windowText.ts';

const BYTES_LINE: SeriesLine = { series: SERIES.bytesInFlight, stat: 'mean' };
const BYTES_KEY = lineKey(BYTES_LINE);
const BYTES_SERIES: Series[] = [chartSeries(BYTES_LINE)];

/** Seconds of unaveraged samples in the strip above the 60 s chart. */
const STRIP_WINDOW_MS = 10_000;
const inflightReads = (frame: LiveFrame): number | null => frame.inflight?.total.count ?? null;
// Module constants: a new function per render would defeat the charts' memo.
const formatReads = (value: number): string => formatNumber(value, 1);
const formatBytesInFlight = (value: number): string => formatBytes(value, 1);

/**
 * Per bucket: mean reads in flight per state group (a breakdown the roll-ups do not keep, so it
 * stays here), and mean bytes in flight as core's SERIES computes it (the roll-ups' too).
 */
function reducerFor(groups: readonly StateSeries[]): BucketReducer<LiveFrame> {
  const empty = Object.fromEntries([...groups.map((g) => [g.key, null]), [BYTES_KEY, null]]) as Record<string, null>;
  const reduce = (bucket: readonly LiveFrame[]): Record<string, number | null> => {
    const sums: Record<string, number> = {};
    let frames = 0;
    for (const frame of bucket) {
      if (frame.inflight === null) continue;
      frames++;
      for (const group of groups) {
        let count = 0;
        for (const state of group.states) count += frame.inflight.byState[state]?.count ?? 0;
        sums[group.key] = (sums[group.key] ?? 0) + count;
      }
    }
    if (frames === 0) return empty;
    return {
      ...Object.fromEntries(Object.entries(sums).map(([key, sum]) => [key, sum / frames])),
      ...bucketValues([BYTES_LINE], { frames: bucket, deltas: [] }),
    };
  };
  return { reduce, empty };
}

/** What the "now" figures say of their own rate (the strip under them draws every sample). */
const NOW_FIGURES_RATE = `Shown ${1000 / NOW_FIGURES_INTERVAL_MS} times a second; the strip below draws every sample`;

/** The newest sample's figures, rendered 4 times a second at a tick of the strip (useLatestFrame). */
const InflightNow = memo(function InflightNow({
  store,
  stale,
  method,
}: {
  store: LiveStore;
  stale: boolean;
  method: IoMethod | null;
}): ReactNode {
  const newest = useLatestFrame(store);
  // Stale (no frame for 2 s, or the target is not live): the last sample is no longer "now".
  const latest = stale ? undefined : newest;
  return (
    <>
      <Figure
        label="now"
        value={formatNumber(latest?.inflight?.total.count ?? null, 0)}
        testId="inflight-now"
        explain={`Read I/Os listed in pg_aios at the latest sample (any state), issued by any process. ${NOW_FIGURES_RATE}.`}
      />
      <Figure
        label="bytes now"
        value={formatBytes(latest?.inflight?.total.bytes ?? null)}
        testId="inflight-bytes-now"
        explain={`Sum of pg_aios.length over the reads in flight at the latest sample. ${NOW_FIGURES_RATE}.`}
      />
      {/* Only io workers have a backlog: under io_uring a SUBMITTED read is in the kernel. */}
      {showsWorkerFigures(method) ? (
        <Figure
          label="worker backlog now"
          value={formatNumber(latest?.inflight?.workerBacklog ?? null, 0)}
          testId="inflight-worker-backlog"
          explain={`SUBMITTED reads that io workers must run (not f_sync, not f_localmem): queued or executing. A proxy: the worker queue itself is not exposed in SQL. ${NOW_FIGURES_RATE}.`}
        />
      ) : null}
    </>
  );
});

export interface InflightPanelProps {
  frames: readonly LiveFrame[];
  /** The page's window summary (App): its peak and mean are this panel's figures. */
  summary: LiveWindowSummary;
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
  /** For the per-sample strip, which redraws on every frame without re-rendering the panel. */
  store: LiveStore;
  /** The newest frame is too old to call "now" (see LiveStore.isStale). */
  stale: boolean;
}

export function InflightPanel({
  frames,
  summary,
  domain,
  bucketMs,
  target,
  store,
  stale,
}: InflightPanelProps): ReactNode {
  const windowText = useWindowText();
  const method = ioMethodOfTarget(target);
  const groups = useMemo(() => inflightStateSeries(method), [method]);
  const countSeries: Series[] = useMemo(() => groups.map(({ key, label, color }) => ({ key, label, color })), [groups]);
  const reducer = useMemo(() => reducerFor(groups), [groups]);
  const rows = useBucketRows(frames, domain, bucketMs, reducer);
  const latest = frames[frames.length - 1];
  const counted = summary.inflightSamples;
  const bytesTicks = useMemo(
    () =>
      byteTicks(
        rows.reduce((max, row) => Math.max(max, row[BYTES_KEY] ?? 0), 0),
        8 * 1024,
        3,
      ),
    [rows],
  );
  const bytesDomain = useMemo((): [number, number | 'auto'] => [0, bytesTicks.at(-1) ?? 'auto'], [bytesTicks]);
  const rate = target?.sampleRateHz ?? 0;
  const unavailable = aiosUnavailableReason(target, latest);
  return (
    <Panel
      title="Reads in flight"
      testId="panel-inflight"
      source={`pg_aios (reads, operation readv), sampled at ${rate} Hz · now: shown at ${1000 / NOW_FIGURES_INTERVAL_MS} Hz · chart: mean per ${bucketMs} ms`}
    >
      {unavailable !== null ? (
        <EmptyState>{unavailable}</EmptyState>
      ) : (
        <>
          <div className="figures figures-live">
            <InflightNow store={store} stale={stale} method={method} />
            <Figure
              label={`peak, ${windowText.short}`}
              value={formatNumber(summary.peakInflightReads, 0)}
              testId="inflight-peak"
              explain={`Largest number of reads seen in flight in one sample over ${windowText.long} (${counted} samples at ${rate} Hz). Short-lived reads between samples are not seen.`}
            />
            <Figure
              label={`mean, ${windowText.short}`}
              value={formatNumber(summary.meanInflightReads, 1)}
              explain={`Mean number of reads in flight per sample over ${windowText.long}.`}
            />
          </div>
          <p className="chart-caption">
            Every sample of the {STRIP_WINDOW_MS / 1000} s{' '}
            {windowText === LIVE_WINDOW_TEXT ? 'up to now' : 'up to the moment shown'} ({rate} Hz, not averaged):
          </p>
          <LiveSampleStrip
            store={store}
            windowMs={STRIP_WINDOW_MS}
            sampleIntervalMs={1000 / (rate || 20)}
            value={inflightReads}
            yLabel="reads"
            color="var(--series-1)"
            ariaLabel={`reads in flight at every sample over the last ${STRIP_WINDOW_MS / 1000} seconds`}
          />
          <p className="chart-caption">
            {capitalize(windowText.long)}, mean per {bucketMs} ms, by state:
          </p>
          <TimeSeriesChart
            ariaLabel={`reads in flight by state over ${windowText.spoken}`}
            rows={rows}
            series={countSeries}
            kind="stackedArea"
            domain={domain}
            yLabel="reads"
            formatY={formatReads}
          />
          <TimeSeriesChart
            ariaLabel={`bytes in flight over ${windowText.spoken}`}
            rows={rows}
            series={BYTES_SERIES}
            kind="stackedArea"
            domain={domain}
            yLabel="bytes"
            formatY={formatBytesInFlight}
            yDomain={bytesDomain}
            yTicks={bytesTicks}
            height={130}
          />
        </>
      )}
    </Panel>
  );
}
