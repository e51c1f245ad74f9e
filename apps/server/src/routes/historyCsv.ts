import {
  BYTES_PER_READ_WINDOW_SECONDS,
  busyShare,
  bytesPerReadSeries,
  emptyTally,
  rollupStepFor,
  tallyFrame,
} from '@aioscope/core';
import {
  AIO_WAIT_EVENTS,
  MAX_RAW_RANGE_MS,
  MAX_ROLLUP_POINTS,
  type HistoryRange,
  type IoStatDelta,
  type LiveFrame,
  type RollupPoint,
} from '@aioscope/spec';
import type { HistoryReader } from '../history/historyReader.ts';
import { csvRow, csvRows, type CsvCell } from '../http/csv.ts';

/**
 * A range's series as CSV for spreadsheets: one row per frame, or per roll-up step when the range
 * is longer than raw frames are served for. Rows are written by core's one CSV writer.
 */

/** Shares and means keep 4 decimals: more is noise in a spreadsheet, and files stay small. */
const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 10_000) / 10_000);

/**
 * One column per AIO wait event, summed over backend types. Idle io workers (IoWorkerMain) are
 * not waiting on I/O: the busy share covers them. Any other wait of a sampled process (a busy io
 * worker's, a process with reads in flight) goes to "other".
 */
const WAIT_COLUMNS = AIO_WAIT_EVENTS.filter((event) => event !== 'IoWorkerMain');
const IDLE_WORKER_WAIT = 'IoWorkerMain';

/** Processes per wait column, from a frame's or a roll-up's "backendType:waitEvent" counts. */
export function waitCells(waits: Record<string, number>): number[] {
  const byEvent = new Map<string, number>();
  let other = 0;
  for (const [key, count] of Object.entries(waits)) {
    const event = key.slice(key.lastIndexOf(':') + 1);
    if (event === IDLE_WORKER_WAIT) continue;
    if ((WAIT_COLUMNS as readonly string[]).includes(event)) byEvent.set(event, (byEvent.get(event) ?? 0) + count);
    else other += count;
  }
  return [...WAIT_COLUMNS.map((event) => round(byEvent.get(event) ?? 0) ?? 0), round(other) ?? 0];
}

const waitHeader = (unit: string): string[] => [
  ...WAIT_COLUMNS.map((event) => `waiting in ${event} (${unit})`),
  `waiting in another event (${unit}, idle io workers left out)`,
];

// "server" first, so CSVs of several servers can be pasted into one sheet. The sample query round
// trip is what the fast tick's query took, not a time of day: the time columns are the sample's.
export const FRAME_CSV_HEADER = [
  'server',
  'time (ISO 8601, UTC)',
  'time (epoch ms)',
  'reads in flight (count)',
  'bytes in flight (bytes)',
  'new reads (count)',
  'new read bytes (bytes)',
  `bytes per read, exact (pg_stat_io, bytes, reads of the last ${BYTES_PER_READ_WINDOW_SECONDS} s)`,
  'io worker busy share (0-1)',
  'worker backlog (reads)',
  ...waitHeader('processes'),
  'sample query round trip (ms)',
];

export const ROLLUP_CSV_HEADER = [
  'server',
  'step start (ISO 8601, UTC)',
  'step start (epoch ms)',
  'reads in flight (mean count)',
  'bytes in flight (mean bytes)',
  'new reads (count in step)',
  'new read bytes (bytes in step)',
  'pg_stat_io reads (count in step)',
  'pg_stat_io read bytes (bytes in step)',
  'bytes per read, exact (pg_stat_io, bytes, reads of the step)',
  'io worker busy share (0-1)',
  'worker backlog (mean reads)',
  ...waitHeader('mean processes'),
  'sample query round trip (mean ms)',
  'step (ms)',
  'samples in step (count)',
];

/**
 * A frame's row. `exactBytesPerRead` is the dashboard's exact figure at the frame's time: pg_stat_io
 * bytes / reads of the trailing window (ExactBytesPerRead below), null when none was counted.
 */
export function frameRow(server: string, frame: LiveFrame, exactBytesPerRead: number | null): CsvCell[] {
  return [
    server,
    new Date(frame.t).toISOString(),
    frame.t,
    frame.inflight?.total.count ?? null,
    frame.inflight?.total.bytes ?? null,
    frame.newReads?.count ?? null,
    frame.newReads?.bytes ?? null,
    round(exactBytesPerRead),
    round(busyShare(tallyFrame(emptyTally(), frame))),
    frame.inflight?.workerBacklog ?? null,
    ...waitCells(frame.waits),
    frame.sampleMs,
  ];
}

export function rollupRow(server: string, point: RollupPoint, stepMs: number): CsvCell[] {
  return [
    server,
    new Date(point.t).toISOString(),
    point.t,
    point.inflightKnown ? round(point.readsInFlight.mean) : null,
    point.inflightKnown ? round(point.bytesInFlight.mean) : null,
    point.newReads,
    point.newReadBytes,
    point.statReads,
    point.statReadBytes,
    point.statReads > 0 ? round(point.statReadBytes / point.statReads) : null,
    round(busyShare({ busy: point.workerBusy, samples: point.workerSamples })),
    round(point.workerBacklog?.mean ?? null),
    ...(point.frames > 0 ? waitCells(point.waits) : waitHeader('').map(() => null)),
    round(point.sampleMs.mean),
    stepMs,
    point.frames,
  ];
}

/** Raw frames are read a minute at a time, so a long export never holds them all. */
const CHUNK_MS = 60_000;
const WINDOW_MS = BYTES_PER_READ_WINDOW_SECONDS * 1000;

/**
 * The exact bytes per read at each frame's time, over pg_stat_io deltas fed in time order, chunk
 * by chunk: the newest delta ending at or before the frame, weighted over its trailing window by
 * core's bytesPerReadSeries (the figure the dashboard and /metrics show). Only the deltas that the
 * next chunk's window can reach are kept.
 */
export class ExactBytesPerRead {
  private kept: IoStatDelta[] = [];
  private points: { t: number; weighted: number | null }[] = [];
  private current: number | null = null;

  /** Deltas ending in [from, …), after every delta fed before. */
  add(deltas: readonly IoStatDelta[], from: number): void {
    const fresh = this.kept.length;
    this.kept.push(...deltas);
    // Points not yet passed by at() stay: at() may not have been called since the last add.
    this.points.push(...bytesPerReadSeries(this.kept).slice(fresh));
    this.kept = this.kept.filter((delta) => delta.t > from + CHUNK_MS - 2 * WINDOW_MS);
  }

  /** The figure at time t; call with times in order. */
  at(t: number): number | null {
    while (this.points.length > 0 && (this.points[0] as { t: number }).t <= t)
      this.current = (this.points.shift() as { weighted: number | null }).weighted;
    return this.current;
  }
}

/** The CSV text of a range, in pieces, for a streamed response; `server` names the target. */
export async function* csvOfRange(reader: HistoryReader, range: HistoryRange, server: string): AsyncGenerator<string> {
  if (range.to - range.from <= MAX_RAW_RANGE_MS) {
    yield csvRow(FRAME_CSV_HEADER);
    const exact = new ExactBytesPerRead();
    // The deltas before the range that its first frames' window reaches back to.
    const before = await reader.frames({ from: range.from - 2 * WINDOW_MS, to: range.from });
    exact.add(before.ioDeltas, range.from - CHUNK_MS);
    for (let from = range.from; from < range.to; from += CHUNK_MS) {
      const { frames, ioDeltas } = await reader.frames({ from, to: Math.min(range.to, from + CHUNK_MS) });
      exact.add(ioDeltas, from);
      if (frames.length > 0) yield csvRows(frames.map((frame) => frameRow(server, frame, exact.at(frame.t))));
    }
    return;
  }
  const stepMs = rollupStepFor(range.from, range.to, undefined, MAX_ROLLUP_POINTS);
  yield csvRow(ROLLUP_CSV_HEADER);
  const points = await reader.rollups(range, stepMs);
  yield csvRows(points.map((point) => rollupRow(server, point, stepMs)));
}
