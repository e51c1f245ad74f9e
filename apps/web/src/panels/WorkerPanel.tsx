import { useMemo, type ReactNode } from 'react';
import { bucketValues, lineKey, SERIES, workerVerdict, type LiveWindowSummary, type SeriesLine } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type ReferenceMark, type Series } from '../charts/TimeSeriesChart.tsx';
import { chartSeries } from '../charts/seriesLines.ts';
import { useBucketRows, type BucketReducer } from '../charts/useBucketRows.ts';
import { formatClockTime, formatNumber, formatPercent } from '../format.ts';
import { ioMethodOfTarget, showsWorkerFigures } from './ioMethodView.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';
import { presentWorkerPids, presentWorkersOnly } from './workerPresence.ts';
import { LIVE_WINDOW_TEXT, useWindowText } from '../timeline/windowText.ts';

const BUSY_LINE: SeriesLine = { series: SERIES.workerBusy, stat: 'mean' };
const BUSY_SERIES: Series[] = [chartSeries(BUSY_LINE)];
const BACKLOG_SERIES: Series[] = [
  { key: 'backlog', label: 'submitted reads (queued or executing)', color: 'var(--series-1)' },
  { key: 'workers', label: 'io workers', color: 'var(--series-4)' },
];
/** Cells per worker strip: one per 2 s over the 60 s window. */
const STRIP_CELLS = 30;

/**
 * Per bucket: the busy share as core's SERIES computes it (the roll-ups' too); the backlog and the
 * pool size as means over every sample of the bucket (a sample without pg_aios counts no backlog).
 */
function busyBucket(bucket: readonly LiveFrame[]): Record<string, number | null> {
  let backlog = 0;
  let workers = 0;
  for (const frame of bucket) {
    workers += frame.ioWorkers.length;
    backlog += frame.inflight?.workerBacklog ?? 0;
  }
  return {
    ...bucketValues([BUSY_LINE], { frames: bucket, deltas: [] }),
    backlog: backlog / bucket.length,
    workers: workers / bucket.length,
  };
}

const BUSY_REDUCER: BucketReducer<LiveFrame> = {
  reduce: busyBucket,
  empty: { [lineKey(BUSY_LINE)]: null, backlog: null, workers: null },
};
const SHARE_DOMAIN: [number, number] = [0, 1];
const formatCount = (value: number): string => formatNumber(value, 1);

/** Busy fraction per worker per cell of the window: the per-worker timeline. */
function workerStrips(frames: readonly LiveFrame[], domain: [number, number]): Map<number, (number | null)[]> {
  const cellMs = (domain[1] - domain[0]) / STRIP_CELLS;
  const cells = new Map<number, { busy: number; samples: number }[]>();
  for (const frame of frames) {
    const cell = Math.floor((frame.t - domain[0]) / cellMs);
    if (cell < 0 || cell >= STRIP_CELLS) continue;
    for (const worker of frame.ioWorkers) {
      const strip = cells.get(worker.pid) ?? Array.from({ length: STRIP_CELLS }, () => ({ busy: 0, samples: 0 }));
      const entry = strip[cell];
      if (entry !== undefined) {
        entry.samples++;
        if (worker.busy) entry.busy++;
      }
      cells.set(worker.pid, strip);
    }
  }
  return new Map(
    [...cells.entries()].map(([pid, strip]) => [
      pid,
      strip.map((entry) => (entry.samples > 0 ? entry.busy / entry.samples : null)),
    ]),
  );
}

function noWorkersReason(target: TargetSummary | undefined): string | null {
  if (target?.server === null || target?.server === undefined)
    return refusedReason(target, 'Not sampled') ?? 'Waiting for the first sample …';
  const method = ioMethodOfTarget(target);
  // Every worker figure below exists only under io_method = worker.
  if (showsWorkerFigures(method)) return null;
  if (method === 'sync') {
    return 'io_method = sync: asynchronous I/O is off and every backend reads for itself. There are no io workers to saturate.';
  }
  if (method === 'io_uring') {
    return 'io_method = io_uring: the kernel runs the reads and there are no io workers. Watch AioIoUringSubmit / AioIoUringExecution waits instead.';
  }
  const setting = target.server.ioMethod;
  return setting === null
    ? `PostgreSQL ${target.server.version} has no io_method (asynchronous I/O exists from PostgreSQL 18): no io workers.`
    : `io_method = ${setting}: no io workers.`;
}

/** PostgreSQL 19 grows and shrinks the pool between these; 18 has a fixed io_workers. */
function poolLimits(settings: NonNullable<TargetSummary['server']>['settings'] = []): ReferenceMark[] {
  const marks: ReferenceMark[] = [];
  for (const name of ['io_min_workers', 'io_max_workers']) {
    const value = settings.find((setting) => setting.name === name)?.value;
    if (value !== null && value !== undefined) marks.push({ y: value, label: name });
  }
  return marks;
}

export interface WorkerPanelProps {
  frames: readonly LiveFrame[];
  /** summarizeLiveWindow(frames), computed once for the page. */
  summary: LiveWindowSummary;
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary | undefined;
  /**
   * The samples up to the moment shown, when it is not the end of `frames` (a past range paused at
   * a moment): the verdict and the "now" figures are about that moment, not the range's end.
   */
  momentFrames?: readonly LiveFrame[];
}

export function WorkerPanel({ frames, summary, domain, bucketMs, target, momentFrames }: WorkerPanelProps): ReactNode {
  const windowText = useWindowText();
  const rows = useBucketRows(frames, domain, bucketMs, BUSY_REDUCER);
  const strips = useMemo(() => workerStrips(frames, domain), [frames, domain]);
  const upToMoment = momentFrames ?? frames;
  // Workers gone (an io_method restart, a pool that shrank) leave the list at once, strips included.
  const listed = useMemo(
    () => presentWorkersOnly(summary.perWorkerBusyFraction, presentWorkerPids(upToMoment)),
    [summary.perWorkerBusyFraction, upToMoment],
  );
  const latest = upToMoment[upToMoment.length - 1];
  // In a past range "the last 10 s" would read as now: the span is named by the time it ends.
  const live = useWindowText() === LIVE_WINDOW_TEXT;
  const verdict = useMemo(
    () =>
      workerVerdict(
        upToMoment,
        target?.server?.ioMethod ?? null,
        live || latest === undefined ? undefined : (seconds) => `${seconds} s up to ${formatClockTime(latest.t)}`,
      ),
    [upToMoment, target?.server?.ioMethod, live, latest],
  );
  const reason = noWorkersReason(target);
  const settings = target?.server?.settings;
  const references = useMemo(() => poolLimits(settings), [settings]);
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
      ) : (frames[frames.length - 1]?.ioWorkers.length ?? 0) === 0 && frames.length > 0 ? (
        <EmptyState>
          No io worker is visible in pg_stat_activity. Without pg_read_all_stats their wait events are hidden: GRANT
          pg_read_all_stats (or pg_monitor) to the monitoring role.
        </EmptyState>
      ) : (
        <>
          <div className={`verdict verdict-${verdict.level.replace(' ', '-')}`} data-testid="worker-verdict">
            <strong>{verdict.summary}</strong>
            <ul>
              {verdict.evidence.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
          <div className="figures">
            <Figure
              label={`busy, ${windowText.short}`}
              value={formatPercent(summary.workerBusyFraction)}
              testId="worker-busy-fraction"
              explain={`Share of (io worker × sample) pairs in which the worker was not idle in IoWorkerMain, over ${windowText.long} at ${rate} Hz.`}
            />
            <Figure
              label="busy now"
              testId="worker-busy-now"
              value={latest === undefined ? '–' : `${busyNow} of ${workersNow}`}
              explain="io workers not in IoWorkerMain at the latest sample (in a past range: the sample at the moment shown)."
            />
          </div>
          <TimeSeriesChart
            ariaLabel={`io worker busy fraction over ${windowText.spoken}`}
            rows={rows}
            series={BUSY_SERIES}
            kind="stackedArea"
            domain={domain}
            yLabel="busy"
            yDomain={SHARE_DOMAIN}
            formatY={formatPercent}
            height={130}
          />
          <TimeSeriesChart
            ariaLabel={`io worker backlog and pool size over ${windowText.spoken}`}
            rows={rows}
            series={BACKLOG_SERIES}
            kind="line"
            domain={domain}
            yLabel="count"
            unit=""
            formatY={formatCount}
            height={120}
            dots={false}
            references={references}
          />
          <ul className="worker-list" aria-label="busy fraction per io worker">
            {listed.map((worker) => {
              const now = latest?.ioWorkers.find((candidate) => candidate.pid === worker.pid);
              return (
                <li
                  key={worker.pid}
                  aria-label={`io worker pid ${worker.pid}: busy in ${formatPercent(worker.busyFraction)} of ${worker.samples} samples; now: ${now === undefined ? 'gone' : now.busy ? (now.waitEvent ?? 'running') : 'IoWorkerMain'}`}
                >
                  <span className="worker-pid">pid {worker.pid}</span>
                  <span className="strip" aria-hidden="true">
                    {(strips.get(worker.pid) ?? []).map((cell, index) => (
                      <span
                        key={index}
                        className="strip-cell"
                        style={{ opacity: cell === null ? 0.08 : 0.15 + 0.85 * cell }}
                      />
                    ))}
                  </span>
                  <span className="worker-value">{formatPercent(worker.busyFraction)}</span>
                  <span className="worker-wait">
                    {now === undefined ? '—' : now.busy ? (now.waitEvent ?? 'running') : 'IoWorkerMain'}
                  </span>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </Panel>
  );
}
