import { useMemo, type ReactNode } from 'react';
import {
  BYTES_PER_READ_WINDOW_SECONDS,
  exactBytesPerRead,
  SERIES,
  type BucketRow,
  type SeriesLine,
  type LiveWindowSummary,
} from '@aioscope/core';
import type { IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type HoverValue, type ReferenceMark, type Series } from '../charts/TimeSeriesChart.tsx';
import { byteTicks } from '../charts/ticks.ts';
import { chartSeries, seriesReducer } from '../charts/seriesLines.ts';
import { useBucketRows } from '../charts/useBucketRows.ts';
import { formatBytes, formatNumber } from '../format.ts';
import { exactBytesPerReadRows } from './bytesPerReadRows.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { aiosUnavailableReason, refusedReason } from './reasons.ts';
import { rollupSource, rollupTotals, stepText, type RollupRange } from './rollupRange.ts';
import { rollupLineRows } from '../timeline/rollupRows.ts';
import { useWindowText } from '../timeline/windowText.ts';

/** pg_stat_io is sampled once a second, so both series share one-second buckets. */
const BUCKET_MS = 1_000;
const WINDOW_S = BYTES_PER_READ_WINDOW_SECONDS;
/** The live line, from pg_aios samples as core's SERIES says; the exact lines are the trailing 10 s below. */
const LIVE_LINE: SeriesLine = { series: SERIES.liveBytesPerRead, stat: 'mean' };
const LINES: Series[] = [
  chartSeries(LIVE_LINE),
  { key: 'bulk', label: `exact, scans (bulk reads), ${WINDOW_S} s by reads`, color: 'var(--series-2)' },
  { key: 'other', label: `exact, other reads, ${WINDOW_S} s by reads`, color: 'var(--series-5)' },
];
/** The per-second truth behind the weighted lines: in the hover readout only. */
const HOVER_ONLY: HoverValue[] = [
  { key: 'all', label: `exact, all reads, ${WINDOW_S} s` },
  { key: 'interval', label: 'exact, this second alone' },
  { key: 'reads', label: 'reads counted this second', format: (value) => formatNumber(value, 0) },
];

const LIVE_REDUCER = seriesReducer([LIVE_LINE]);
/**
 * A long range: both lines per step from the roll-ups' sums, all reads together (the roll-ups keep
 * no trailing window and no bulk reads apart).
 */
const ROLLUP_LINES: SeriesLine[] = [LIVE_LINE, { series: SERIES.exactBytesPerRead, stat: 'mean' }];
const ROLLUP_SERIES: Series[] = ROLLUP_LINES.map((line) => chartSeries(line));
const TITLE = 'Bytes per read (read combining)';
const formatBytesPerRead = (value: number): string => formatBytes(value, 0);

/** The combine limits as reference lines, and a y scale that shows them (one object per pair of limits). */
function limitMarks(
  combineLimit: number | null,
  maxCombineLimit: number | null,
): { references: ReferenceMark[]; yDomain: [number, number]; yTicks: number[] } {
  const references: ReferenceMark[] = [];
  if (combineLimit !== null)
    references.push({ y: combineLimit, label: `io_combine_limit ${formatBytes(combineLimit)}` });
  if (maxCombineLimit !== null && maxCombineLimit !== combineLimit) {
    references.push({ y: maxCombineLimit, label: `io_max_combine_limit ${formatBytes(maxCombineLimit)}` });
  }
  const yMax = Math.max(combineLimit ?? 0, maxCombineLimit ?? 0, 131072) * 1.1;
  return { references, yDomain: [0, yMax], yTicks: byteTicks(yMax, 32 * 1024) };
}

export interface BytesPerReadSamplesProps {
  frames: readonly LiveFrame[];
  /** summarizeLiveWindow(frames), computed once for the page. */
  summary: LiveWindowSummary;
  deltas: readonly IoStatDelta[];
  domain: [number, number];
  target: TargetSummary | undefined;
}

/** A panel of one range, whatever it is drawn from: the samples (live, ≤ 15 min) or roll-ups. */
export type BytesPerReadPanelProps = BytesPerReadSamplesProps | RollupRange;

export function BytesPerReadPanel(props: BytesPerReadPanelProps): ReactNode {
  return 'rollups' in props ? <BytesPerReadOverRollups {...props} /> : <BytesPerReadOverSamples {...props} />;
}

function BytesPerReadOverSamples({ frames, summary, deltas, domain, target }: BytesPerReadSamplesProps): ReactNode {
  const windowText = useWindowText();
  const live = useBucketRows(frames, domain, BUCKET_MS, LIVE_REDUCER);
  const rows: BucketRow[] = useMemo(() => {
    // A delta stamped t covers the second before it: filed under the bucket it ended in. All
    // deltas kept (up to 10 min) go in, so the first buckets' 10 s windows are full.
    const exact = exactBytesPerReadRows(deltas, { fromT: domain[0], toT: domain[1], bucketMs: BUCKET_MS });
    return live.map((row, index) => ({ ...exact[index], ...row }));
  }, [live, deltas, domain]);

  const exact = useMemo(() => exactBytesPerRead(deltas.filter((delta) => delta.t >= domain[0])), [deltas, domain]);
  const combineLimit = target?.server?.ioCombineLimitBytes ?? null;
  const latest = frames[frames.length - 1];
  const unavailable = aiosUnavailableReason(target, latest);
  const refused = refusedReason(target, 'Not sampled');
  const source = `live: pg_aios at ${target?.sampleRateHz ?? 0} Hz, each read counted once, mean per second · exact: pg_stat_io at ${target?.statRateHz ?? 1} Hz, Δread_bytes / Δreads over the last ${WINDOW_S} s weighted by reads, scans apart · hover: each second's own value`;

  // A refused server has neither figure: no empty chart and no "no statement finished" beside the reason.
  if (refused !== null)
    return (
      <Panel title={TITLE} testId="panel-bytes-per-read" source={source}>
        <EmptyState>{refused}</EmptyState>
      </Panel>
    );

  return (
    <Panel title={TITLE} testId="panel-bytes-per-read" source={source}>
      <div className="figures">
        <Figure
          label={`live, ${windowText.short}`}
          value={unavailable === null ? formatBytes(summary.liveBytesPerRead) : '–'}
          testId="bytes-per-read-live"
          explain={`Mean pg_aios.length of the ${summary.distinctReads} distinct reads seen in ${windowText.long} (identified by pid, io_id, io_generation). Sampled: reads shorter than the sample interval may be missed.`}
        />
        <Figure
          label={`exact, ${windowText.short}`}
          value={exact.bytesPerRead === null ? 'no statement finished' : formatBytes(exact.bytesPerRead)}
          testId="bytes-per-read-exact"
          tone={exact.bytesPerRead === null ? 'muted' : 'normal'}
          explain={`Δread_bytes / Δreads of relations in pg_stat_io over ${windowText.long}, all reads (${formatNumber(exact.reads, 0)} reads, ${formatBytes(exact.readBytes)}). Exact, but only counted when a statement ends. The chart's exact lines: the same over the trailing ${WINDOW_S} s, weighted by reads, for scans (bulk reads) and for other reads apart; hover a point for that second alone.`}
        />
        <CombineLimitFigure combineLimit={combineLimit} />
      </div>
      <BytesPerReadChart rows={rows} series={LINES} domain={domain} target={target} hoverOnly={HOVER_ONLY} />
      {unavailable !== null ? <EmptyState>{unavailable}</EmptyState> : null}
      <p className="caveat">
        pg_stat_io does not move while a statement runs: a backend adds its reads when the statement ends, or up to 10 s
        later if it had flushed less than a second before. So exact reads come in bursts after statements finish; each
        exact line is weighted by reads over the last {WINDOW_S} s, so a tiny statement flushing a few 8 kB reads alone
        does not pull the scans&apos; line down (it shows on the other-reads line, and per second on hover). The live
        line comes from pg_aios samples while reads are in flight.
      </p>
    </Panel>
  );
}

function CombineLimitFigure({ combineLimit }: { combineLimit: number | null }): ReactNode {
  return (
    <Figure
      label="io_combine_limit"
      value={formatBytes(combineLimit)}
      explain="The largest read PostgreSQL combines adjacent blocks into (pg_settings; capped by io_max_combine_limit)."
    />
  );
}

/** The chart every range draws: bytes per read against the target's combine limits. */
function BytesPerReadChart({
  rows,
  series,
  domain,
  target,
  hoverOnly,
  dots,
}: {
  rows: readonly BucketRow[];
  series: Series[];
  domain: [number, number];
  target: TargetSummary | undefined;
  hoverOnly?: HoverValue[];
  /** Dots on the lines: at 1 s points, not at a long range's hundreds of steps. */
  dots?: boolean;
}): ReactNode {
  const windowText = useWindowText();
  const combineLimit = target?.server?.ioCombineLimitBytes ?? null;
  const maxCombineLimit = target?.server?.ioMaxCombineLimitBytes ?? null;
  const { references, yDomain, yTicks } = useMemo(
    () => limitMarks(combineLimit, maxCombineLimit),
    [combineLimit, maxCombineLimit],
  );
  return (
    <TimeSeriesChart
      ariaLabel={`bytes per read over ${windowText.spoken}`}
      rows={rows}
      series={series}
      kind="line"
      domain={domain}
      yLabel="bytes / read"
      formatY={formatBytesPerRead}
      yDomain={yDomain}
      yTicks={yTicks}
      references={references}
      hoverOnly={hoverOnly}
      dots={dots}
    />
  );
}

/**
 * A long range from roll-ups: per step, bytes over reads of both sources (the live one from reads
 * first seen in pg_aios, the exact one from pg_stat_io), all reads together.
 */
function BytesPerReadOverRollups({ rollups, target }: RollupRange): ReactNode {
  const windowText = useWindowText();
  const rows = useMemo(() => rollupLineRows(rollups, ROLLUP_LINES), [rollups]);
  const totals = useMemo(() => rollupTotals(rollups), [rollups]);
  const domain = useMemo((): [number, number] => [rollups.from, rollups.to], [rollups]);
  const step = stepText(rollups);
  const source = `live: ${rollupSource('pg_aios', target?.sampleRateHz ?? 0, rollups, 'bytes / reads first seen')} · exact: pg_stat_io at ${target?.statRateHz ?? 1} Hz, Δread_bytes / Δreads per ${step}, all reads`;
  return (
    <Panel title={TITLE} testId="panel-bytes-per-read" source={source}>
      <div className="figures">
        <Figure
          label={`live, ${windowText.short}`}
          value={formatBytes(totals.liveBytesPerRead)}
          testId="bytes-per-read-live"
          explain={`Mean pg_aios.length of the ${formatNumber(totals.newReads, 0)} distinct reads seen in ${windowText.long}. Sampled: reads shorter than the sample interval may be missed.`}
        />
        <Figure
          label={`exact, ${windowText.short}`}
          value={totals.exactBytesPerRead === null ? 'no statement finished' : formatBytes(totals.exactBytesPerRead)}
          testId="bytes-per-read-exact"
          tone={totals.exactBytesPerRead === null ? 'muted' : 'normal'}
          explain={`Δread_bytes / Δreads of relations in pg_stat_io over ${windowText.long}, all reads (${formatNumber(totals.statReads, 0)} reads). Exact, but only counted when a statement ends.`}
        />
        <CombineLimitFigure combineLimit={target?.server?.ioCombineLimitBytes ?? null} />
      </div>
      <p className="chart-caption">Per {step}: bytes of the reads counted in the step over their number.</p>
      <BytesPerReadChart rows={rows} series={ROLLUP_SERIES} domain={domain} target={target} dots={false} />
    </Panel>
  );
}
