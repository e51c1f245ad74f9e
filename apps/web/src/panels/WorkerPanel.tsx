import { useMemo, type ReactNode } from 'react';
import { SERIES, workerVerdict, type BucketRow, type LiveWindowSummary, type SeriesLine } from '@aioscope/core';
import type { LiveFrame, TargetSummary } from '@aioscope/spec';
import { TimeSeriesChart, type ReferenceMark, type Series } from '../charts/TimeSeriesChart.tsx';
import { chartSeries, seriesReducer } from '../charts/seriesLines.ts';
import { useBucketRows } from '../charts/useBucketRows.ts';
import { formatClockTime, formatNumber, formatPercent } from '../format.ts';
import { ioMethodOfTarget, showsWorkerFigures } from './ioMethodView.ts';
import { EmptyState, Figure, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';
import { rollupSource, rollupTotals, stepText, type RollupRange } from './rollupRange.ts';
import { presentWorkerPids, presentWorkersOnly } from './workerPresence.ts';
import { rollupLineRows } from '../timeline/rollupRows.ts';
import { LIVE_WINDOW_TEXT, useWindowText } from '../timeline/windowText.ts';

const BUSY_LINE: SeriesLine = { series: SERIES.workerBusy, stat: 'mean' };
const BUSY_SERIES: Series[] = [chartSeries(BUSY_LINE)];
/** The backlog over the samples that read pg_aios, and the pool size, means per bucket or step (core SERIES). */
const BACKLOG_LINE: SeriesLine = { series: SERIES.workerBacklog, stat: 'mean' };
const POOL_LINE: SeriesLine = { series: SERIES.ioWorkers, stat: 'mean' };
const BACKLOG_SERIES: Series[] = [chartSeries(BACKLOG_LINE), chartSeries(POOL_LINE)];
/**
 * A long range adds the largest backlog sample per step, in the colour of every max line; the pool
 * size moves to another colour there so the two read apart.
 */
const BACKLOG_MAX_LINE: SeriesLine = { series: SERIES.workerBacklog, stat: 'max' };
const ROLLUP_BACKLOG_SERIES: Series[] = [
  chartSeries(BACKLOG_MAX_LINE, 'submitted reads, max per step'),
  chartSeries(BACKLOG_LINE, 'submitted reads, mean per step'),
  { ...chartSeries(POOL_LINE), color: 'var(--series-5)' },
];
const CHART_LINES: SeriesLine[] = [BUSY_LINE, BACKLOG_LINE, POOL_LINE];
const ROLLUP_LINES: SeriesLine[] = [...CHART_LINES, BACKLOG_MAX_LINE];
/** Cells per worker strip: one per 2 s over the 60 s window. */
const STRIP_CELLS = 30;

const BUSY_REDUCER = seriesReducer(CHART_LINES);
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

export interface WorkerSamplesProps {
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

/** A panel of one range, whatever it is drawn from: the samples (live, ≤ 15 min) or roll-ups. */
export type WorkerPanelProps = WorkerSamplesProps | RollupRange;

export function WorkerPanel(props: WorkerPanelProps): ReactNode {
  return 'rollups' in props ? <WorkerOverRollups {...props} /> : <WorkerOverSamples {...props} />;
}

const TITLE = 'io worker saturation';
const SOURCE = "pg_stat_activity (backend_type = 'io worker'; busy = wait event other than IoWorkerMain)";

function WorkerOverSamples({ frames, summary, domain, bucketMs, target, momentFrames }: WorkerSamplesProps): ReactNode {
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
    <Panel title={TITLE} testId="panel-workers" source={`${SOURCE}, sampled at ${rate} Hz`}>
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
          <WorkerCharts rows={rows} backlogSeries={BACKLOG_SERIES} domain={domain} references={references} />
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

/** The charts every range draws: the busy share, and the backlog beside the pool size. */
function WorkerCharts({
  rows,
  backlogSeries,
  domain,
  references,
}: {
  rows: readonly BucketRow[];
  backlogSeries: Series[];
  domain: [number, number];
  references: ReferenceMark[];
}): ReactNode {
  const windowText = useWindowText();
  return (
    <>
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
        series={backlogSeries}
        kind="line"
        domain={domain}
        yLabel="count"
        unit=""
        formatY={formatCount}
        height={120}
        dots={false}
        references={references}
      />
    </>
  );
}

/**
 * A long range from roll-ups: the range's busy share and the charts of every range, the backlog's
 * largest sample per step added. Whether workers were sampled is the range's own answer: the
 * server's io_method may have changed since.
 */
function WorkerOverRollups({ rollups, target }: RollupRange): ReactNode {
  const windowText = useWindowText();
  const rows = useMemo(() => rollupLineRows(rollups, ROLLUP_LINES), [rollups]);
  const totals = useMemo(() => rollupTotals(rollups), [rollups]);
  const domain = useMemo((): [number, number] => [rollups.from, rollups.to], [rollups]);
  const settings = target?.server?.settings;
  const references = useMemo(() => poolLimits(settings), [settings]);
  return (
    <Panel
      title={TITLE}
      testId="panel-workers"
      source={`${rollupSource(SOURCE, target?.sampleRateHz ?? 0, rollups, 'busy share, mean and max')} · figures: the whole range`}
    >
      {totals.workerSamples === 0 ? (
        <EmptyState>No io worker was sampled in this range (io_method is not worker, or no samples).</EmptyState>
      ) : (
        <>
          <div className="figures">
            <Figure
              label={`busy, ${windowText.short}`}
              value={formatPercent(totals.workerBusyShare)}
              testId="worker-busy-fraction"
              explain={`Share of (io worker × sample) pairs in which the worker was not idle in IoWorkerMain, over ${windowText.long} (${formatNumber(totals.workerSamples, 0)} pairs).`}
            />
          </div>
          <p className="chart-caption">
            Per {stepText(rollups)}: share of (io worker × sample) pairs not idle; submitted reads and io workers.
          </p>
          <WorkerCharts rows={rows} backlogSeries={ROLLUP_BACKLOG_SERIES} domain={domain} references={references} />
        </>
      )}
    </Panel>
  );
}
