import { useMemo, type ReactNode } from 'react';
import { lineKey, SERIES, type SeriesLine, type SeriesStat } from '@aioscope/core';
import type { HistoryRollups, TargetSummary } from '@aioscope/spec';
import { chartSeries } from '../charts/seriesLines.ts';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { byteTicks } from '../charts/ticks.ts';
import { formatBytes, formatDuration, formatNumber, formatPercent } from '../format.ts';
import { EmptyState, Panel } from '../panels/Panel.tsx';
import { rollupLineRows } from './rollupRows.ts';

const perStep = (stat: SeriesStat): string => `${stat} per step`;
const READ_LINES: SeriesLine[] = [
  { series: SERIES.readsInFlight, stat: 'max' },
  { series: SERIES.readsInFlight, stat: 'mean' },
];
const BYTES_PER_READ_LINES: SeriesLine[] = [
  { series: SERIES.liveBytesPerRead, stat: 'mean' },
  { series: SERIES.exactBytesPerRead, stat: 'mean' },
];
const WORKER_LINES: SeriesLine[] = [{ series: SERIES.workerBusy, stat: 'mean' }];
const BACKLOG_LINES: SeriesLine[] = [
  { series: SERIES.workerBacklog, stat: 'max' },
  { series: SERIES.workerBacklog, stat: 'mean' },
];
const READS: Series[] = READ_LINES.map((line) => chartSeries(line, perStep(line.stat)));
const BYTES_PER_READ: Series[] = BYTES_PER_READ_LINES.map((line) => chartSeries(line));
const WORKERS: Series[] = WORKER_LINES.map((line) => chartSeries(line, 'io worker busy share'));
const BACKLOG: Series[] = BACKLOG_LINES.map((line) => chartSeries(line, `backlog, ${perStep(line.stat)}`));
const BYTES_PER_READ_KEYS = BYTES_PER_READ_LINES.map(lineKey);

export interface RollupPanelsProps {
  rollups: HistoryRollups | undefined;
  error: string | null;
  target: TargetSummary | undefined;
  onSelectRange: (from: number, to: number) => void;
}

/**
 * A long range, drawn from roll-ups (1 s count, mean and max of every series, merged to the step
 * the server chose): never every raw frame, so a day draws as fast as a minute. Drag on a chart
 * to narrow it; at 15 minutes or less the live panels take over with every sample.
 */
export function RollupPanels({ rollups, error, target, onSelectRange }: RollupPanelsProps): ReactNode {
  const rate = target?.sampleRateHz ?? 0;
  const rows = useMemo(() => {
    if (rollups === undefined) return null;
    return {
      reads: rollupLineRows(rollups, READ_LINES),
      bytesPerRead: rollupLineRows(rollups, BYTES_PER_READ_LINES),
      workers: rollupLineRows(rollups, WORKER_LINES),
      backlog: rollupLineRows(rollups, BACKLOG_LINES),
    };
  }, [rollups]);
  const step = rollups === undefined ? '' : formatDuration(rollups.stepMs, 'span');
  const source = `roll-ups of samples taken at ${rate} Hz (pg_aios, pg_stat_activity) and 1 Hz (pg_stat_io), merged per ${step}`;
  if (error !== null) return <EmptyState>Cannot read the roll-ups: {error}</EmptyState>;
  if (rollups === undefined || rows === null) return <EmptyState>Reading roll-ups…</EmptyState>;
  const domain: [number, number] = [rollups.from, rollups.to];
  const maxBytesPerRead = rows.bytesPerRead.reduce(
    (max, row) => Math.max(max, ...BYTES_PER_READ_KEYS.map((key) => row[key] ?? 0)),
    target?.server?.ioCombineLimitBytes ?? 0,
  );
  const bytesTicks = byteTicks(maxBytesPerRead, 8 * 1024, 4);
  const hasWorkers = rollups.points.some((point) => point.workerSamples > 0);
  return (
    <div className="panels" data-testid="rollup-panels">
      <Panel title="Reads in flight" testId="rollup-inflight" source={`pg_aios ${source}`}>
        <p className="chart-caption">Per {step}: the largest sample and the mean of the samples.</p>
        <TimeSeriesChart
          ariaLabel={`reads in flight, max and mean per ${step}`}
          rows={rows.reads}
          series={READS}
          kind="line"
          dots={false}
          domain={domain}
          yLabel="reads"
          formatY={(value) => formatNumber(value, 1)}
          onSelectRange={onSelectRange}
        />
      </Panel>
      <Panel title="Bytes per read" testId="rollup-bytes-per-read" source={`pg_aios and pg_stat_io ${source}`}>
        <p className="chart-caption">
          Per {step}: bytes of the reads counted in the step over their number (read combining).
        </p>
        <TimeSeriesChart
          ariaLabel={`bytes per read per ${step}`}
          rows={rows.bytesPerRead}
          series={BYTES_PER_READ}
          kind="line"
          dots={false}
          domain={domain}
          yLabel="bytes"
          unit=""
          formatY={(value) => formatBytes(value, 0)}
          yDomain={[0, bytesTicks.at(-1) ?? 'auto']}
          yTicks={bytesTicks}
          references={
            target?.server?.ioCombineLimitBytes
              ? [{ y: target.server.ioCombineLimitBytes, label: 'io_combine_limit' }]
              : []
          }
          onSelectRange={onSelectRange}
        />
      </Panel>
      <Panel title="io workers" testId="rollup-workers" source={`pg_stat_activity wait_event of io workers, ${source}`}>
        {hasWorkers ? (
          <>
            <p className="chart-caption">Per {step}: share of (io worker × sample) pairs not idle, and the backlog.</p>
            <TimeSeriesChart
              ariaLabel={`io worker busy share per ${step}`}
              rows={rows.workers}
              series={WORKERS}
              kind="line"
              dots={false}
              domain={domain}
              yLabel="busy"
              unit=""
              formatY={(value) => formatPercent(value)}
              yDomain={[0, 1]}
              yTicks={[0, 0.25, 0.5, 0.75, 1]}
              height={130}
              onSelectRange={onSelectRange}
            />
            <TimeSeriesChart
              ariaLabel={`io worker backlog per ${step}`}
              rows={rows.backlog}
              series={BACKLOG}
              kind="line"
              dots={false}
              domain={domain}
              yLabel="reads"
              formatY={(value) => formatNumber(value, 1)}
              height={130}
              onSelectRange={onSelectRange}
            />
          </>
        ) : (
          <EmptyState>No io worker was sampled in this range (io_method is not worker, or no samples).</EmptyState>
        )}
      </Panel>
    </div>
  );
}
