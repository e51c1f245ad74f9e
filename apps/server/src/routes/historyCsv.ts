import { busyShare, rollupStepFor, tallyFrame, emptyTally } from '@aioscope/core';
import {
  MAX_RAW_RANGE_MS,
  MAX_ROLLUP_POINTS,
  type HistoryRange,
  type LiveFrame,
  type RollupPoint,
} from '@aioscope/spec';
import type { HistoryReader } from '../history/historyReader.ts';

/**
 * A range's series as CSV for spreadsheets: one row per frame, or per roll-up step when the range
 * is longer than raw frames are served for. No CSV library is installed, and the values are
 * numbers and ISO times, so RFC 4180 quoting of the few fields that need it is all there is to it.
 */

type Cell = string | number | null;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows end in CRLF, as RFC 4180 and spreadsheet imports expect. */
export function csvLine(cells: readonly Cell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** Shares and means keep 4 decimals: more is noise in a spreadsheet, and files stay small. */
const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 10_000) / 10_000);

export const FRAME_CSV_HEADER = [
  'time (ISO 8601, UTC)',
  'time (epoch ms)',
  'reads in flight (count)',
  'bytes in flight (bytes)',
  'new reads (count)',
  'new read bytes (bytes)',
  'io worker busy share (0-1)',
  'worker backlog (reads)',
  'sample time (ms)',
];

export const ROLLUP_CSV_HEADER = [
  'step start (ISO 8601, UTC)',
  'step start (epoch ms)',
  'reads in flight (mean count)',
  'bytes in flight (mean bytes)',
  'new reads (count in step)',
  'new read bytes (bytes in step)',
  'io worker busy share (0-1)',
  'worker backlog (mean reads)',
  'sample time (mean ms)',
  'step (ms)',
  'samples in step (count)',
];

export function frameRow(frame: LiveFrame): Cell[] {
  return [
    new Date(frame.t).toISOString(),
    frame.t,
    frame.inflight?.total.count ?? null,
    frame.inflight?.total.bytes ?? null,
    frame.newReads?.count ?? null,
    frame.newReads?.bytes ?? null,
    round(busyShare(tallyFrame(emptyTally(), frame))),
    frame.inflight?.workerBacklog ?? null,
    frame.sampleMs,
  ];
}

export function rollupRow(point: RollupPoint, stepMs: number): Cell[] {
  return [
    new Date(point.t).toISOString(),
    point.t,
    point.inflightKnown ? round(point.readsInFlight.mean) : null,
    point.inflightKnown ? round(point.bytesInFlight.mean) : null,
    point.newReads,
    point.newReadBytes,
    round(busyShare({ busy: point.workerBusy, samples: point.workerSamples })),
    round(point.workerBacklog?.mean ?? null),
    round(point.sampleMs.mean),
    stepMs,
    point.frames,
  ];
}

/** Raw frames are read a minute at a time, so a long export never holds them all. */
const CHUNK_MS = 60_000;

/** The CSV text of a range, in pieces, for a streamed response. */
export async function* csvOfRange(reader: HistoryReader, range: HistoryRange): AsyncGenerator<string> {
  if (range.to - range.from <= MAX_RAW_RANGE_MS) {
    yield csvLine(FRAME_CSV_HEADER);
    for (let from = range.from; from < range.to; from += CHUNK_MS) {
      const { frames } = await reader.frames({ from, to: Math.min(range.to, from + CHUNK_MS) });
      if (frames.length > 0) yield frames.map((frame) => csvLine(frameRow(frame))).join('');
    }
    return;
  }
  const stepMs = rollupStepFor(range.from, range.to, undefined, MAX_ROLLUP_POINTS);
  yield csvLine(ROLLUP_CSV_HEADER);
  const points = await reader.rollups(range, stepMs);
  yield points.map((point) => csvLine(rollupRow(point, stepMs))).join('');
}
