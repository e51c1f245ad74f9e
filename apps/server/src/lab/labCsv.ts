import type { LabRun } from '@aioscope/spec';
import { csvRows, type CsvCell } from '../http/csv.ts';

const CSV_COLUMNS: (keyof LabRun)[] = [
  'variant',
  'round',
  'startedAt',
  'ioMethod',
  'cacheState',
  'osResidencyBefore',
  'executionMs',
  'sharedReadBlocks',
  'sharedHitBlocks',
  'ioReadTimeMs',
  'reads',
  'readBytes',
  'bytesPerRead',
];

/**
 * How a spreadsheet should see each column: the start as an ISO 8601 time (a bare epoch in ms reads
 * as a 13-digit number), bytes per read to the byte (a mean of whole-byte reads has no meaningful
 * fraction).
 */
function csvValue(run: LabRun, column: keyof LabRun): CsvCell {
  if (column === 'startedAt') return new Date(run.startedAt).toISOString();
  if (column === 'bytesPerRead') return run.bytesPerRead === null ? null : Math.round(run.bytesPerRead);
  const value = run[column];
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

/** Every run, one row each, for spreadsheets. */
export function labRunsToCsv(runs: readonly LabRun[]): string {
  return csvRows([CSV_COLUMNS, ...runs.map((run) => CSV_COLUMNS.map((column) => csvValue(run, column)))]);
}
