import { useMemo, type ReactNode } from 'react';
import { bucketize, exactBytesPerRead, type BucketRow, type LiveWindowSummary } from '@aioscope/core';
import type { IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type ReferenceMark, type Series } from '../charts/TimeSeriesChart.tsx';
import { byteTicks } from '../charts/ticks.ts';
import { formatBytes, formatNumber } from '../format.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';

/** pg_stat_io is sampled once a second, so both series share one-second buckets. */
const BUCKET_MS = 1_000;
const SERIES: Series[] = [
  { key: 'live', label: 'live: mean pg_aios length of new reads', color: 'var(--series-1)' },
  { key: 'exact', label: 'exact: Δread_bytes / Δreads (pg_stat_io)', color: 'var(--series-2)' },
];

function liveBucket(bucket: readonly LiveFrame[]): Record<string, number | null> {
  let count = 0;
  let bytes = 0;
  for (const frame of bucket) {
    count += frame.newReads?.count ?? 0;
    bytes += frame.newReads?.bytes ?? 0;
  }
  return { live: count > 0 ? bytes / count : null };
}

function exactBucket(bucket: readonly IoStatDelta[]): Record<string, number | null> {
  return { exact: exactBytesPerRead(bucket).bytesPerRead };
}

export interface BytesPerReadPanelProps {
  frames: readonly LiveFrame[];
  /** summarizeLiveWindow(frames), computed once for the page. */
  summary: LiveWindowSummary;
  deltas: readonly IoStatDelta[];
  domain: [number, number];
  target: TargetSummary | undefined;
}

export function BytesPerReadPanel({ frames, summary, deltas, domain, target }: BytesPerReadPanelProps): ReactNode {
  const rows: BucketRow[] = useMemo(() => {
    const common = { fromT: domain[0], toT: domain[1], bucketMs: BUCKET_MS };
    const live = bucketize(frames, { ...common, reduce: liveBucket, empty: { live: null } });
    // A delta stamped t covers the second before it: file it under the bucket it ended in.
    const exact = bucketize(deltas, { ...common, reduce: exactBucket, empty: { exact: null } });
    return live.map((row, index) => ({ ...row, exact: exact[index]?.exact ?? null }));
  }, [frames, deltas, domain]);

  const exact = useMemo(() => exactBytesPerRead(deltas.filter((delta) => delta.t >= domain[0])), [deltas, domain]);
  const combineLimit = target?.server?.ioCombineLimitBytes ?? null;
  const maxCombineLimit = target?.server?.ioMaxCombineLimitBytes ?? null;
  const references: ReferenceMark[] = [];
  if (combineLimit !== null)
    references.push({ y: combineLimit, label: `io_combine_limit ${formatBytes(combineLimit)}` });
  if (maxCombineLimit !== null && maxCombineLimit !== combineLimit) {
    references.push({ y: maxCombineLimit, label: `io_max_combine_limit ${formatBytes(maxCombineLimit)}` });
  }
  const yMax = Math.max(combineLimit ?? 0, maxCombineLimit ?? 0, 131072) * 1.1;
  const latest = frames[frames.length - 1];
  const unavailable = aiosUnavailableReason(target, latest);

  return (
    <Panel
      title="Bytes per read (read combining)"
      testId="panel-bytes-per-read"
      source={`live: pg_aios at ${target?.sampleRateHz ?? 0} Hz, each read counted once · exact: pg_stat_io at ${target?.statRateHz ?? 1} Hz`}
    >
      <div className="figures">
        <Figure
          label="live, 60 s"
          value={unavailable === null ? formatBytes(summary.liveBytesPerRead) : '–'}
          testId="bytes-per-read-live"
          explain={`Mean pg_aios.length of the ${summary.distinctReads} distinct reads seen in the last 60 s (identified by pid, io_id, io_generation). Sampled: reads shorter than the sample interval may be missed.`}
        />
        <Figure
          label="exact, 60 s"
          value={exact.bytesPerRead === null ? 'no statement finished' : formatBytes(exact.bytesPerRead)}
          testId="bytes-per-read-exact"
          tone={exact.bytesPerRead === null ? 'muted' : 'normal'}
          explain={`Δread_bytes / Δreads of relations in pg_stat_io over the last 60 s (${formatNumber(exact.reads, 0)} reads, ${formatBytes(exact.readBytes)}). Exact, but only counted when a statement ends.`}
        />
        <Figure
          label="io_combine_limit"
          value={formatBytes(combineLimit)}
          explain="The largest read PostgreSQL combines adjacent blocks into (pg_settings; capped by io_max_combine_limit)."
        />
      </div>
      <TimeSeriesChart
        ariaLabel="bytes per read over the last 60 seconds"
        rows={rows}
        series={SERIES}
        kind="line"
        domain={domain}
        yLabel="bytes / read"
        formatY={(value) => formatBytes(value, 0)}
        yDomain={[0, yMax]}
        yTicks={byteTicks(yMax, 32 * 1024)}
        references={references}
      />
      {unavailable !== null ? <EmptyState>{unavailable}</EmptyState> : null}
      <p className="caveat">
        pg_stat_io does not move while a statement runs: a backend adds its reads when the statement ends, or up to 10 s
        later if it had flushed less than a second before. So the exact line comes in bursts after scans finish; the
        live line comes from pg_aios samples while reads are in flight.
      </p>
    </Panel>
  );
}
