import { useMemo, useState, type ReactNode } from 'react';
import { formatBytes, formatNumber, formatPercent } from '@aioscope/core';
import { MAX_RAW_RANGE_MS, type HistoryReaders, type ReaderRow } from '@aioscope/spec';
import { useHistoryReaders } from '../api/history.ts';
import { formatClockTime } from '../format.ts';
import { EmptyState, Explain, Panel } from '../panels/Panel.tsx';
import {
  DEFAULT_READER_SORT,
  intervalMarks,
  nextReaderSort,
  readerRowKey,
  sortReaders,
  type ReaderSort,
  type ReaderSortKey,
} from './readerRows.ts';
import type { RangeView } from './useTimeTravel.ts';
import './readers.css';

const SOURCE =
  'pg_aios reads in flight per process at every frame (20 Hz by default), attributed through the processes table ' +
  '(2 Hz) · scan bytes from the scan map (5 Hz) · raw samples of this range only';
/** Width of the strip's coordinate system; it stretches to the section. */
const STRIP_WIDTH = 1000;
const STRIP_HEIGHT = 14;

function SortHeader({
  label,
  sortKey,
  sort,
  onSort,
  children,
}: {
  label: string;
  sortKey: ReaderSortKey;
  sort: ReaderSort;
  onSort: (key: ReaderSortKey) => void;
  children?: ReactNode;
}): ReactNode {
  const active = sort.key === sortKey;
  return (
    <th aria-sort={active ? sort.direction : 'none'}>
      <button type="button" className="link sort" onClick={() => onSort(sortKey)}>
        {label}
        <span aria-hidden="true">{active ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}</span>
      </button>
      {children}
    </th>
  );
}

/** The selected statement's stretches of reading across the range, and the moment shown. */
function ReadingStrip({ row, view }: { row: ReaderRow; view: RangeView }): ReactNode {
  const marks = intervalMarks(row.intervals, view, STRIP_WIDTH, 2);
  const momentX = intervalMarks([[view.at, view.at]], view, STRIP_WIDTH, 0)[0]?.[0] ?? 0;
  const first = row.intervals[0];
  return (
    <figure className="readers-strip" data-testid="readers-strip">
      <svg viewBox={`0 0 ${STRIP_WIDTH} ${STRIP_HEIGHT}`} preserveAspectRatio="none" aria-hidden="true">
        <rect className="readers-strip-range" x={0} y={0} width={STRIP_WIDTH} height={STRIP_HEIGHT} />
        {marks.map(([x, width]) => (
          <rect key={x} className="readers-strip-reading" x={x} y={2} width={width} height={STRIP_HEIGHT - 4} />
        ))}
        <line className="readers-strip-moment" x1={momentX} x2={momentX} y1={0} y2={STRIP_HEIGHT} />
      </svg>
      <figcaption>
        Reads in flight in {row.intervals.length} stretch{row.intervals.length === 1 ? '' : 'es'}
        {first === undefined ? '' : `, first at ${formatClockTime(first[0])}`}; the moment moved to its first read.
      </figcaption>
    </figure>
  );
}

function waitsText(row: ReaderRow): string {
  if (row.waits.length === 0) return '—';
  return row.waits.map((wait) => `${wait.event.replace(':', ': ')} ${formatPercent(wait.share)}`).join(', ');
}

function ReadersTable({
  answer,
  view,
  onMoment,
}: {
  answer: HistoryReaders;
  view: RangeView;
  onMoment: (at: number) => void;
}): ReactNode {
  const [sort, setSort] = useState(DEFAULT_READER_SORT);
  const [selected, setSelected] = useState<string | null>(null);
  const rows = useMemo(() => sortReaders(answer.rows, sort), [answer.rows, sort]);
  const selectedRow = rows.find((row) => readerRowKey(row) === selected);
  const onSort = (key: ReaderSortKey): void => setSort(nextReaderSort(sort, key));
  const choose = (row: ReaderRow): void => {
    setSelected(readerRowKey(row));
    onMoment(row.firstReadAt);
  };
  return (
    <>
      <div className="table-wrap">
        <table className="readers" data-testid="readers-table">
          <thead>
            <tr>
              <th className="readers-wide-only">statement</th>
              <th className="readers-wide-only">processes</th>
              <SortHeader label="sample-seconds" sortKey="sampleSeconds" sort={sort} onSort={onSort}>
                <Explain label="sample-seconds">
                  Frames in which its processes had a read in pg_aios, times the sample interval (
                  {formatNumber(answer.sampleIntervalMs ?? 0, 0)} ms here): how long it had reads in flight, as often as
                  it was sampled.
                </Explain>
              </SortHeader>
              <SortHeader label="reads in flight" sortKey="readsInFlightMean" sort={sort} onSort={onSort}>
                <Explain label="reads in flight">
                  Mean and peak of its processes&apos; pg_aios reads over the frames in which it had any.
                </Explain>
              </SortHeader>
              <th>
                bytes per read{' '}
                <Explain label="bytes per read">
                  pg_aios length of its reads seen in flight / their number: the size of the reads it issued, as
                  sampled. pg_stat_io counts per backend type, not per statement, so no exact figure exists here.
                </Explain>
              </th>
              <SortHeader label="scans advanced" sortKey="scanBytes" sort={sort} onSort={onSort}>
                <Explain label="scans advanced">
                  Blocks its relation scans advanced in this range × block size (the scan map, 5 Hz): bytes a scan got
                  through, a measured figure for scans only (index and other reads are not in it).
                </Explain>
              </SortHeader>
              <th className="readers-wide-only">main waits</th>
              <SortHeader label="first read" sortKey="firstReadAt" sort={sort} onSort={onSort} />
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const key = readerRowKey(row);
              return (
                <tr key={key} className={key === selected ? 'selected' : undefined}>
                  <td className="query">
                    <button
                      type="button"
                      className="link"
                      aria-pressed={key === selected}
                      onClick={() => choose(row)}
                      data-testid="reader-row"
                    >
                      <span className="readers-query-text">
                        {row.queryText ?? `pid ${row.pids.join(', ')}: statement not recorded`}
                      </span>
                      {/* On a card the statement's text is its heading: say what pressing it does. */}
                      <span className="readers-card-action">Show its moments on the timeline</span>
                    </button>
                    {row.relations.length > 0 ? (
                      <span className="activity readers-relations">
                        <span className="readers-wide-only"> · </span>
                        {row.relations.join(', ')}
                      </span>
                    ) : null}
                  </td>
                  <td data-label="processes">
                    {row.pids.join(', ')}
                    {/* Without a table row its executions cannot be told apart: no count is better than a wrong one. */}
                    {row.queryText === null ? null : (
                      <span className="activity">
                        {' '}
                        · {row.executions} execution{row.executions === 1 ? '' : 's'}
                        {row.backendTypes.includes('parallel worker') ? ' · with parallel workers' : ''}
                      </span>
                    )}
                  </td>
                  <td className="num" data-label="sample-seconds">
                    {formatNumber(row.sampleSeconds, 2)} s
                  </td>
                  <td className="num" data-label="reads in flight, mean / peak">
                    {formatNumber(row.readsInFlightMean, 1)} / {row.readsInFlightPeak}
                  </td>
                  <td className="num" data-label="bytes per read">
                    {formatBytes(row.bytesPerReadInFlight)}
                  </td>
                  <td className="num" data-label="scans advanced">
                    {row.scanBytes === null ? '—' : formatBytes(row.scanBytes)}
                  </td>
                  <td className="readers-waits" data-label="main waits">
                    {waitsText(row)}
                  </td>
                  <td className="num" data-label="first read">
                    {formatClockTime(row.firstReadAt)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {selectedRow !== undefined ? <ReadingStrip row={selectedRow} view={view} /> : null}
    </>
  );
}

function ioWorkersText(answer: HistoryReaders): string {
  const { busyShare, samples } = answer.ioWorkers;
  if (busyShare === null) return 'No io workers were sampled (io_method is not worker, or nothing was recorded).';
  return `io workers are not statements: they run the reads of others. Busy in ${formatPercent(busyShare)} of ${samples} io worker samples.`;
}

/**
 * "Who was reading" for a past range: the statements whose processes had reads in flight, from the
 * recorded frames and processes tables. Choosing one moves the moment to its first read and draws
 * its stretches of reading across the range.
 */
export function WhoWasReading({
  targetId,
  view,
  onMoment,
}: {
  targetId: string;
  view: RangeView;
  onMoment: (at: number) => void;
}): ReactNode {
  const tooLong = view.to - view.from > MAX_RAW_RANGE_MS;
  const readers = useHistoryReaders(targetId, tooLong ? null : { from: view.from, to: view.to });
  const answer = readers.data !== undefined && readers.data.from === view.from ? readers.data : undefined;
  let body: ReactNode;
  if (tooLong) {
    body = <EmptyState>Statements are worked out from raw samples: choose 15 minutes or less.</EmptyState>;
  } else if (readers.error !== null) {
    body = <EmptyState>Cannot list the statements: {readers.error.message}</EmptyState>;
  } else if (answer === undefined) {
    body = <EmptyState>Reading the recorded samples…</EmptyState>;
  } else if (answer.frames > 0 && answer.framesWithInflight === 0) {
    body = <EmptyState>pg_aios could not be read in this range: reads in flight are unknown, not zero.</EmptyState>;
  } else if (answer.rows.length === 0) {
    body = <EmptyState>No reads in flight in this range.</EmptyState>;
  } else {
    body = <ReadersTable key={`${view.from}-${view.to}`} answer={answer} view={view} onMoment={onMoment} />;
  }
  return (
    <Panel title="Who was reading" source={SOURCE} testId="panel-readers">
      {body}
      {answer !== undefined && !tooLong ? (
        <p className="caveat">
          {answer.rows.some((row) => row.queryText === null)
            ? '"Statement not recorded": it read between two processes tables (2 Hz), or before its text was read. '
            : ''}
          {ioWorkersText(answer)}
        </p>
      ) : null}
    </Panel>
  );
}
