import { memo, useMemo, type ReactNode } from 'react';
import {
  lineKey,
  SERIES,
  type BucketRow,
  type IoMethod,
  type LiveWindowSummary,
  type SeriesLine,
} from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { LiveSampleStrip } from '../charts/LiveSampleStrip.tsx';
import { chartSeries, seriesReducer } from '../charts/seriesLines.ts';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { byteTicks } from '../charts/ticks.ts';
import { useBucketRows } from '../charts/useBucketRows.ts';
import { formatBytes, formatNumber } from '../format.ts';
import type { LiveStore } from '../live/liveStore.ts';
import { inflightStateSeries, ioMethodOfTarget, showsWorkerFigures, type StateSeries } from './ioMethodView.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';
import { rollupSource, rollupTotals, stepText, type RollupRange } from './rollupRange.ts';
import { rollupLineRows } from '../timeline/rollupRows.ts';
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

/** A long range's peaks: the largest sample and the mean per step, which a stacked mean hides. */
const PEAK_LINES: SeriesLine[] = [
  { series: SERIES.readsInFlight, stat: 'max' },
  { series: SERIES.readsInFlight, stat: 'mean' },
];
const PEAK_SERIES: Series[] = PEAK_LINES.map((line) => chartSeries(line, `${line.stat} per step`));

/** Per bucket or roll-up step: mean reads in flight per state group and mean bytes in flight (core SERIES). */
const chartLines = (groups: readonly StateSeries[]): SeriesLine[] => [...groups.map((group) => group.line), BYTES_LINE];

/** What the "now" figures say of their own rate (the strip under them draws every sample). */
const nowFiguresRate = (nowText: string): string =>
  `Shown ${nowText}, with the chart; the strip below draws every sample`;

/**
 * The newest sample's figures, rendered with the charts (once per bucket live, at every moment of
 * a past range): a number read by a person needs no more, and a change of their text on its own
 * cost the page a rendering update (style, layout, paint, commit) of its own.
 */
const InflightNow = memo(function InflightNow({
  newest,
  stale,
  method,
  nowText,
}: {
  newest: LiveFrame | undefined;
  stale: boolean;
  method: IoMethod | null;
  /** When the figures change: "every 500 ms" live, "at the moment shown" in a past range. */
  nowText: string;
}): ReactNode {
  const rateText = nowFiguresRate(nowText);
  // Stale (no frame for 2 s, or the target is not live): the last sample is no longer "now".
  const latest = stale ? undefined : newest;
  return (
    <>
      <Figure
        label="now"
        value={formatNumber(latest?.inflight?.total.count ?? null, 0)}
        testId="inflight-now"
        explain={`Read I/Os listed in pg_aios at the latest sample (any state), issued by any process. ${rateText}.`}
      />
      <Figure
        label="bytes now"
        value={formatBytes(latest?.inflight?.total.bytes ?? null)}
        testId="inflight-bytes-now"
        explain={`Sum of pg_aios.length over the reads in flight at the latest sample. ${rateText}.`}
      />
      {/* Only io workers have a backlog: under io_uring a SUBMITTED read is in the kernel. */}
      {showsWorkerFigures(method) ? (
        <Figure
          label="worker backlog now"
          value={formatNumber(latest?.inflight?.workerBacklog ?? null, 0)}
          testId="inflight-worker-backlog"
          explain={`SUBMITTED reads that io workers must run (not f_sync, not f_localmem): queued or executing. A proxy: the worker queue itself is not exposed in SQL. ${rateText}.`}
        />
      ) : null}
    </>
  );
});

export interface InflightSamplesProps {
  frames: readonly LiveFrame[];
  /** The page's window summary (App): its peak and mean are this panel's figures. */
  summary: LiveWindowSummary;
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
  /** For the per-sample strip, which redraws on every frame without re-rendering the panel. */
  store: LiveStore;
  /** The newest sample as of this render (live: at the bucket clock's tick; a past range: the moment's). */
  newest: LiveFrame | undefined;
  /** The newest frame is too old to call "now" (see LiveStore.isStale). */
  stale: boolean;
}

/** A panel of one range, whatever it is drawn from: the samples (live, ≤ 15 min) or roll-ups. */
export type InflightPanelProps = InflightSamplesProps | RollupRange;

export function InflightPanel(props: InflightPanelProps): ReactNode {
  return 'rollups' in props ? <InflightOverRollups {...props} /> : <InflightOverSamples {...props} />;
}

/** The by-state series of the target's io_method, as chart lines and their legends. */
function useStateSeries(target: TargetSummary | undefined): {
  method: IoMethod | null;
  lines: SeriesLine[];
  series: Series[];
} {
  const method = ioMethodOfTarget(target);
  return useMemo(() => {
    const groups = inflightStateSeries(method);
    return { method, lines: chartLines(groups), series: groups.map((group) => chartSeries(group.line, group.label)) };
  }, [method]);
}

function InflightOverSamples({
  frames,
  summary,
  domain,
  bucketMs,
  target,
  store,
  newest,
  stale,
}: InflightSamplesProps): ReactNode {
  const windowText = useWindowText();
  const nowText = windowText === LIVE_WINDOW_TEXT ? `every ${bucketMs} ms` : 'at the moment shown';
  const { method, lines, series } = useStateSeries(target);
  const reducer = useMemo(() => seriesReducer(lines), [lines]);
  const rows = useBucketRows(frames, domain, bucketMs, reducer);
  const latest = frames[frames.length - 1];
  const counted = summary.inflightSamples;
  const rate = target?.sampleRateHz ?? 0;
  const unavailable = aiosUnavailableReason(target, latest);
  return (
    <Panel
      title="Reads in flight"
      testId="panel-inflight"
      source={`pg_aios (reads, operation readv), sampled at ${rate} Hz · now: ${nowText} · chart: mean per ${bucketMs} ms`}
    >
      {unavailable !== null ? (
        <EmptyState>{unavailable}</EmptyState>
      ) : (
        <>
          <div className="figures figures-live">
            <InflightNow newest={newest} stale={stale} method={method} nowText={nowText} />
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
          <InflightCharts
            caption={`${capitalize(windowText.long)}, mean per ${bucketMs} ms, by state:`}
            rows={rows}
            stateSeries={series}
            domain={domain}
          />
        </>
      )}
    </Panel>
  );
}

/** The charts every range draws: reads in flight by state (stacked means) and bytes in flight. */
function InflightCharts({
  caption,
  rows,
  stateSeries,
  domain,
}: {
  caption: string;
  rows: readonly BucketRow[];
  stateSeries: Series[];
  domain: [number, number];
}): ReactNode {
  const windowText = useWindowText();
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
  return (
    <>
      <p className="chart-caption">{caption}</p>
      <TimeSeriesChart
        ariaLabel={`reads in flight by state over ${windowText.spoken}`}
        rows={rows}
        series={stateSeries}
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
  );
}

/**
 * A long range from roll-ups: the range's peak and mean, the largest sample and the mean per step,
 * then the charts of every range. Roll-ups written before the store kept states leave the by-state
 * chart blank there (not recorded), while the peaks still draw.
 */
function InflightOverRollups({ rollups, target }: RollupRange): ReactNode {
  const windowText = useWindowText();
  const { lines, series } = useStateSeries(target);
  const rows = useMemo(() => rollupLineRows(rollups, lines), [rollups, lines]);
  const peakRows = useMemo(() => rollupLineRows(rollups, PEAK_LINES), [rollups]);
  const totals = useMemo(() => rollupTotals(rollups), [rollups]);
  const domain = useMemo((): [number, number] => [rollups.from, rollups.to], [rollups]);
  const rate = target?.sampleRateHz ?? 0;
  const step = stepText(rollups);
  return (
    <Panel
      title="Reads in flight"
      testId="panel-inflight"
      source={`${rollupSource('pg_aios (reads, operation readv)', rate, rollups, 'mean and max')} · figures: the whole range`}
    >
      {totals.peakReads === null ? (
        <EmptyState>
          No sample of this range could read pg_aios (PostgreSQL before 18, or a role without pg_read_all_stats).
        </EmptyState>
      ) : (
        <>
          <div className="figures">
            <Figure
              label={`peak, ${windowText.short}`}
              value={formatNumber(totals.peakReads, 0)}
              testId="inflight-peak"
              explain={`Largest number of reads in flight in one sample over ${windowText.long} (the largest of the 1 s roll-ups' maxima). Short-lived reads between samples are not seen.`}
            />
            <Figure
              label={`mean, ${windowText.short}`}
              value={formatNumber(totals.meanReads, 1)}
              explain={`Mean number of reads in flight per sample over ${windowText.long}, each step weighted by its samples.`}
            />
          </div>
          <p className="chart-caption">Per {step}: the largest sample and the mean of the samples.</p>
          <TimeSeriesChart
            ariaLabel={`reads in flight, max and mean per ${step}`}
            rows={peakRows}
            series={PEAK_SERIES}
            kind="line"
            dots={false}
            domain={domain}
            yLabel="reads"
            formatY={formatReads}
            height={130}
          />
          <InflightCharts
            caption={`${capitalize(windowText.long)}, mean per ${step}, by state:`}
            rows={rows}
            stateSeries={series}
            domain={domain}
          />
        </>
      )}
    </Panel>
  );
}
