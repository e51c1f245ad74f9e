import { useMemo, type ReactNode } from 'react';
import { bucketize, summarizeLiveWindow, type BucketRow } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { formatPercent } from '../format.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';

const SERIES: Series[] = [{ key: 'busy', label: 'io workers busy', color: 'var(--series-3)' }];

function busyBucket(bucket: readonly LiveFrame[]): Record<string, number | null> {
  let busy = 0;
  let samples = 0;
  for (const frame of bucket) {
    for (const worker of frame.ioWorkers) {
      samples++;
      if (worker.busy) busy++;
    }
  }
  return { busy: samples > 0 ? busy / samples : null };
}

function noWorkersReason(target: TargetSummary | undefined): string | null {
  const method = target?.server?.ioMethod ?? null;
  if (method === null) return target?.server === null || target === undefined ? 'Waiting for the first sample …' : null;
  if (method === 'worker') return null;
  if (method === 'sync') {
    return 'io_method = sync: asynchronous I/O is off and every backend reads for itself. There are no io workers to saturate.';
  }
  if (method === 'io_uring') {
    return 'io_method = io_uring: the kernel runs the reads and there are no io workers. Watch AioIoUringSubmit / AioIoUringExecution waits instead.';
  }
  return `io_method = ${method}: no io workers.`;
}

export interface WorkerPanelProps {
  frames: readonly LiveFrame[];
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
}

export function WorkerPanel({ frames, domain, bucketMs, target }: WorkerPanelProps): ReactNode {
  const rows: BucketRow[] = useMemo(
    () => bucketize(frames, { fromT: domain[0], toT: domain[1], bucketMs, reduce: busyBucket, empty: { busy: null } }),
    [frames, domain, bucketMs],
  );
  const summary = useMemo(() => summarizeLiveWindow(frames), [frames]);
  const latest = frames[frames.length - 1];
  const reason = noWorkersReason(target);
  const busyNow = latest?.ioWorkers.filter((worker) => worker.busy).length ?? 0;
  const workersNow = latest?.ioWorkers.length ?? 0;
  const rate = target?.sampleRateHz ?? 0;
  return (
    <Panel
      title="io worker saturation"
      testId="panel-workers"
      source={`pg_stat_activity (backend_type = 'io worker'; busy = wait event other than IoWorkerMain), sampled at ${rate} Hz`}
    >
      {reason !== null ? (
        <EmptyState>{reason}</EmptyState>
      ) : workersNow === 0 && frames.length > 0 ? (
        <EmptyState>
          No io worker is visible in pg_stat_activity. Without pg_read_all_stats their wait events are hidden: GRANT
          pg_read_all_stats (or pg_monitor) to the monitoring role.
        </EmptyState>
      ) : (
        <>
          <div className="figures">
            <Figure
              label="busy, 60 s"
              value={formatPercent(summary.workerBusyFraction)}
              testId="worker-busy-fraction"
              explain={`Share of (io worker × sample) pairs in which the worker was not idle in IoWorkerMain, over the last 60 s at ${rate} Hz.`}
            />
            <Figure
              label="busy now"
              value={`${busyNow} of ${workersNow}`}
              explain="io workers not in IoWorkerMain at the latest sample."
            />
          </div>
          <TimeSeriesChart
            ariaLabel="io worker busy fraction over the last 60 seconds"
            rows={rows}
            series={SERIES}
            kind="stackedArea"
            domain={domain}
            yLabel="busy"
            yDomain={[0, 1]}
            formatY={(value) => formatPercent(value)}
            height={150}
          />
          <ul className="worker-list" aria-label="busy fraction per io worker">
            {summary.perWorkerBusyFraction.map((worker) => {
              const now = latest?.ioWorkers.find((candidate) => candidate.pid === worker.pid);
              return (
                <li
                  key={worker.pid}
                  title={`io worker pid ${worker.pid}: busy in ${formatPercent(worker.busyFraction)} of ${worker.samples} samples; now: ${now?.waitEvent ?? 'gone'}`}
                >
                  <span className="worker-pid">pid {worker.pid}</span>
                  <span className="bar" aria-hidden="true">
                    <span className="bar-fill" style={{ width: `${Math.round(worker.busyFraction * 100)}%` }} />
                  </span>
                  <span className="worker-value">{formatPercent(worker.busyFraction)}</span>
                  <span className="worker-wait">{now?.waitEvent ?? '—'}</span>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </Panel>
  );
}
