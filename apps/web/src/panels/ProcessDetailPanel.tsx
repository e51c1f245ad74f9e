import { useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, type ReactNode, type RefObject } from 'react';
import { busyShare, emptyTally, explainIoProcessSentence, tallyFrame } from '@aioscope/core';
import type { LiveFrame, ProcessView, TargetSummary } from '@aioscope/spec';
import { useProcessDetail } from '../api/targetDetails.ts';
import { TimeSeriesChart, type Series } from '../charts/TimeSeriesChart.tsx';
import { useBucketRows, type BucketReducer } from '../charts/useBucketRows.ts';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { EmptyState, Panel } from './Panel.tsx';
import { useWindowText } from '../timeline/windowText.ts';

const SERIES: Series[] = [{ key: 'reads', label: 'reads in flight', color: 'var(--series-1)' }];
const WORKER_SERIES: Series[] = [{ key: 'busy', label: 'busy (any wait but IoWorkerMain)', color: 'var(--series-3)' }];

/** What an io worker waited on while busy over the frames, most frequent first. */
const NO_FRAMES: readonly LiveFrame[] = [];
// Module constants: new ones per render would defeat the charts' memo.
const SHARE_DOMAIN: [number, number] = [0, 1];
const formatReads = (value: number): string => formatNumber(value, 1);

/** Per bucket: an io worker's busy share, or another process's mean reads in flight. */
function processReducer(pid: number, isIoWorker: boolean): BucketReducer<LiveFrame> {
  return isIoWorker
    ? {
        reduce: (bucket) => ({
          busy: busyShare(bucket.reduce((tally, frame) => tallyFrame(tally, frame, pid), emptyTally())),
        }),
        empty: { busy: null },
      }
    : {
        reduce: (bucket) => ({
          reads: bucket.reduce((sum, frame) => sum + (frame.byProcess[pid]?.[0] ?? 0), 0) / bucket.length,
        }),
        empty: { reads: null },
      };
}

function workerWaits(frames: readonly LiveFrame[], pid: number): { event: string; samples: number }[] {
  const counts = new Map<string, number>();
  for (const frame of frames) {
    const worker = frame.ioWorkers.find((candidate) => candidate.pid === pid);
    if (worker?.busy !== true) continue;
    const event = worker.waitEvent ?? 'running (no wait)';
    counts.set(event, (counts.get(event) ?? 0) + 1);
  }
  return [...counts.entries()].map(([event, samples]) => ({ event, samples })).sort((a, b) => b.samples - a.samples);
}

/** Brings the detail into view when a process is selected far from it (a long page, a narrow screen). */
function useRevealOnSelect(pid: number | null): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (pid === null || element === null) return;
    const box = element.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight - 80)
      element.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [pid]);
  return ref;
}

/**
 * Escape closes the detail (unless something inside a form or an explanation took it first).
 * The listener stays for as long as a process is selected and reads the newest `onClose` when
 * called. Re-added on every render (20 a second while live), it could be lost mid-press: when an
 * earlier keydown listener (the chart library has one) starts a render, React first runs pending
 * effects, and a listener removed during a dispatch is skipped, its replacement not yet called.
 */
function useEscapeToClose(active: boolean, onClose: () => void): void {
  const onKey = useEffectEvent((event: KeyboardEvent): void => {
    const target = event.target as HTMLElement | null;
    if (event.key !== 'Escape' || (target?.closest('input, select, textarea') ?? null) !== null) return;
    onClose();
  });
  // From the commit that shows the detail on (a layout effect), so an Escape as soon as it is seen closes it.
  useLayoutEffect(() => {
    if (!active) return undefined;
    const listener = (event: KeyboardEvent): void => onKey(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [active]);
}

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
  const windowText = useWindowText();
  const detail = useProcessDetail(target?.id, pid);
  const revealRef = useRevealOnSelect(pid);
  useEscapeToClose(pid !== null, onClose);
  const isIoWorker =
    process?.backendType === 'io worker' ||
    (pid !== null && frames[frames.length - 1]?.ioWorkers.some((worker) => worker.pid === pid) === true);
  const reducer = useMemo(() => processReducer(pid ?? 0, isIoWorker), [pid, isIoWorker]);
  // No process selected: no frames to reduce.
  const rows = useBucketRows(pid === null ? NO_FRAMES : frames, domain, bucketMs, reducer);
  const waits = useMemo(() => (pid !== null && isIoWorker ? workerWaits(frames, pid) : []), [frames, pid, isIoWorker]);
  if (pid === null) {
    return (
      <Panel title="Process detail" testId="panel-process-detail" source="select a process or a scan">
        <EmptyState>
          Select a process in the table or a scan on the map to see its timeline and I/O counters.
        </EmptyState>
      </Panel>
    );
  }
  if (isIoWorker) {
    const busy = busyShare(frames.reduce((tally, frame) => tallyFrame(tally, frame, pid), emptyTally()));
    const busySamples = waits.reduce((sum, wait) => sum + wait.samples, 0);
    return (
      <div ref={revealRef} className="reveal-anchor">
        <Panel
          title={`Process ${pid} · io worker`}
          testId="panel-process-detail"
          source={`pg_stat_activity wait_event of this io worker at ${target?.sampleRateHz ?? 0} Hz, ${windowText.long}`}
        >
          <button type="button" className="close" onClick={onClose} aria-label="close process detail">
            close
          </button>
          <p>
            Busy in <strong data-testid="worker-busy">{formatPercent(busy)}</strong> of the samples of {windowText.long}
            (busy: any wait but IoWorkerMain, its idle loop).
          </p>
          <TimeSeriesChart
            ariaLabel={`busy share of io worker ${pid}`}
            rows={rows}
            series={WORKER_SERIES}
            kind="stackedArea"
            domain={domain}
            yLabel="busy"
            yDomain={SHARE_DOMAIN}
            unit=""
            formatY={formatPercent}
            height={140}
          />
          {waits.length === 0 ? (
            <p className="caveat">Not seen busy in {windowText.long}.</p>
          ) : (
            <table className="counters" data-testid="worker-waits">
              <thead>
                <tr>
                  <th>while busy, waiting on</th>
                  <th>samples</th>
                  <th>share</th>
                </tr>
              </thead>
              <tbody>
                {waits.map((wait) => (
                  <tr key={wait.event}>
                    <td>{wait.event}</td>
                    <td className="num">{formatNumber(wait.samples, 0)}</td>
                    <td className="num">{formatPercent(wait.samples / busySamples)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="caveat">
            What it read: PostgreSQL does not say. pg_aios names the backend that issued each read, not the io worker
            that runs it, and PostgreSQL keeps no per-backend I/O counters for io workers. DataFileRead here is the
            worker running a read; the scans it served are on the scan map under their backends.
          </p>
        </Panel>
      </div>
    );
  }
  return (
    <div ref={revealRef} className="reveal-anchor">
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
          formatY={formatReads}
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
              Per-backend counters are cumulative since the process started and, like pg_stat_io, only include
              statements that have ended (a running scan appears after it finishes).
            </p>
            {target?.server ? (
              <p className="caveat" data-testid="process-explain-io">
                {explainIoProcessSentence(target.server.versionNum)}
              </p>
            ) : null}
          </>
        )}
      </Panel>
    </div>
  );
}
