import { useMemo, type ReactNode } from 'react';
import { bucketize, type BucketRow } from '@aioscope/core';
import type { LiveFrame, ProcessView, TargetSummary } from '@aioscope/spec';
import { useProcessDetail } from '../api/targetDetails.ts';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { formatBytes, formatNumber } from '../format.ts';
import { EmptyState, Panel } from './Panel.tsx';

const SERIES: Series[] = [{ key: 'reads', label: 'reads in flight', color: 'var(--series-1)' }];

export interface ProcessDetailPanelProps {
  pid: number | null;
  process: ProcessView | undefined;
  frames: readonly LiveFrame[];
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
  onClose: () => void;
}

export function ProcessDetailPanel({
  pid,
  process,
  frames,
  domain,
  bucketMs,
  target,
  onClose,
}: ProcessDetailPanelProps): ReactNode {
  const detail = useProcessDetail(target?.id, pid);
  const rows: BucketRow[] = useMemo(
    () =>
      pid === null
        ? []
        : bucketize(frames, {
            fromT: domain[0],
            toT: domain[1],
            bucketMs,
            reduce: (bucket) => ({
              reads: bucket.reduce((sum, frame) => sum + (frame.byProcess[pid]?.[0] ?? 0), 0) / bucket.length,
            }),
            empty: { reads: null },
          }),
    [frames, domain, bucketMs, pid],
  );
  if (pid === null) {
    return (
      <Panel title="Process detail" testId="panel-process-detail" source="select a process or a scan">
        <EmptyState>
          Select a process in the table or a scan on the map to see its timeline and I/O counters.
        </EmptyState>
      </Panel>
    );
  }
  return (
    <Panel
      title={`Process ${pid}${process ? ` · ${process.backendType}` : ''}`}
      testId="panel-process-detail"
      source={`timeline: pg_aios at ${target?.sampleRateHz ?? 0} Hz · counters: pg_stat_get_backend_io(${pid}) · query: pg_stat_activity`}
    >
      <button type="button" className="close" onClick={onClose} aria-label="close process detail">
        close
      </button>
      <TimeSeriesChart
        ariaLabel={`reads in flight of process ${pid}`}
        rows={rows}
        series={SERIES}
        kind="stackedArea"
        domain={domain}
        yLabel="reads"
        formatY={(value) => formatNumber(value, 1)}
        height={140}
      />
      {detail.isError ? (
        <EmptyState>{detail.error.message}</EmptyState>
      ) : detail.data === undefined ? (
        <EmptyState>Loading …</EmptyState>
      ) : (
        <>
          <pre className="query-full" data-testid="process-query">
            {detail.data.query ?? '(no query)'}
          </pre>
          {detail.data.backendIo === null ? (
            <p className="caveat">{detail.data.backendIoUnavailable}</p>
          ) : (
            <table className="counters" data-testid="process-counters">
              <thead>
                <tr>
                  <th>object</th>
                  <th>context</th>
                  <th>reads</th>
                  <th>bytes</th>
                  <th>bytes / read</th>
                  <th>read time</th>
                </tr>
              </thead>
              <tbody>
                {detail.data.backendIo.length === 0 ? (
                  <tr>
                    <td colSpan={6}>no reads counted yet</td>
                  </tr>
                ) : (
                  detail.data.backendIo.map((row) => (
                    <tr key={`${row.object}/${row.context}`}>
                      <td>{row.object}</td>
                      <td>{row.context}</td>
                      <td className="num">{formatNumber(row.reads, 0)}</td>
                      <td className="num">{formatBytes(row.readBytes)}</td>
                      <td className="num">{row.reads > 0 ? formatBytes(row.readBytes / row.reads) : '–'}</td>
                      <td className="num">{formatNumber(row.readTimeMs, 0)} ms</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          )}
          <p className="caveat">
            Per-backend counters are cumulative since the process started and, like pg_stat_io, only include statements
            that have ended (a running scan appears after it finishes).
          </p>
        </>
      )}
    </Panel>
  );
}
