import type { ReaderRow } from '@aioscope/spec';

/** Columns the "Who was reading" table sorts by, each largest first when first pressed. */
export const READER_SORT_KEYS = ['sampleSeconds', 'readsInFlightMean', 'scanBytes', 'firstReadAt'] as const;
export type ReaderSortKey = (typeof READER_SORT_KEYS)[number];
export type SortDirection = 'ascending' | 'descending';

export interface ReaderSort {
  key: ReaderSortKey;
  direction: SortDirection;
}

/** The list as it opens: the statement that read longest first, the on-call question. */
export const DEFAULT_READER_SORT: ReaderSort = { key: 'sampleSeconds', direction: 'descending' };

/** A row's identity across sorts and refetches: its text, or its pid when no text was recorded. */
export function readerRowKey(row: ReaderRow): string {
  return row.queryText ?? `pid ${row.pids[0] ?? '?'}`;
}

/** Rows in a sort's order; an unknown figure (null) sorts last either way, ties by first read. */
export function sortReaders(rows: readonly ReaderRow[], sort: ReaderSort): ReaderRow[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const left = a[sort.key];
    const right = b[sort.key];
    if (left === null || right === null) return left === right ? 0 : left === null ? 1 : -1;
    return (left - right) * sign || a.firstReadAt - b.firstReadAt;
  });
}

/** Pressing a column: the same one flips its direction, another starts from its natural order. */
export function nextReaderSort(current: ReaderSort, key: ReaderSortKey): ReaderSort {
  if (current.key === key) return { key, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
  // Times read best earliest first; amounts largest first.
  return { key, direction: key === 'firstReadAt' ? 'ascending' : 'descending' };
}

/**
 * A row's stretches of reading placed on a range drawn `width` wide: [x, width] pairs, clamped to
 * the range and at least `minWidth` wide so that a single sample is still seen.
 */
export function intervalMarks(
  intervals: readonly (readonly [number, number])[],
  range: { from: number; to: number },
  width: number,
  minWidth: number,
): [number, number][] {
  const span = Math.max(1, range.to - range.from);
  const xOf = (t: number): number => (Math.min(range.to, Math.max(range.from, t)) - range.from) * (width / span);
  return intervals.map(([start, end]) => {
    const x = xOf(start);
    return [x, Math.max(minWidth, xOf(end) - x)];
  });
}
