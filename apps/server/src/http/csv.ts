import { stringify } from 'csv-stringify/sync';

/** A spreadsheet cell: text, a number, or empty. */
export type CsvCell = string | number | null;

/**
 * The one CSV writer of the project (history export, lab runs), on the server only: csv-stringify
 * touches Node's Buffer when it loads, so it must stay out of the page's bundle. RFC 4180, so a field with a comma,
 * quote, CR or LF is quoted with its quotes doubled, and every row ends in CRLF, as spreadsheet
 * imports expect. Rows are written in pieces so a long export streams.
 */
export function csvRows(rows: readonly (readonly CsvCell[])[]): string {
  if (rows.length === 0) return '';
  return stringify(
    rows.map((row) => row.map((cell) => cell ?? '')),
    { record_delimiter: 'windows', quoted_match: /[\r\n]/ },
  );
}

/** One row, CRLF-terminated. */
export function csvRow(cells: readonly CsvCell[]): string {
  return csvRows([cells]);
}
