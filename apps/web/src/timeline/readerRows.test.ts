import { describe, expect, it } from 'vitest';
import type { ReaderRow } from '@aioscope/spec';
import { DEFAULT_READER_SORT, intervalMarks, nextReaderSort, readerRowKey, sortReaders } from './readerRows.ts';

function row(queryText: string | null, overrides: Partial<ReaderRow>): ReaderRow {
  return {
    queryText,
    executions: 1,
    pids: [100],
    backendTypes: ['client backend'],
    sampleSeconds: 1,
    samples: 20,
    readsInFlightMean: 1,
    readsInFlightPeak: 1,
    bytesPerReadInFlight: 8192,
    scanBytes: 0,
    relations: [],
    waits: [],
    firstReadAt: 0,
    intervals: [],
    ...overrides,
  };
}

const rows = [
  row('short', { sampleSeconds: 0.5, scanBytes: null, firstReadAt: 10 }),
  row('long', { sampleSeconds: 4, scanBytes: 1_000, firstReadAt: 30 }),
  row(null, { sampleSeconds: 2, scanBytes: 5_000, firstReadAt: 20, pids: [7] }),
];

describe('sortReaders', () => {
  it('opens with the statement that read longest first', () => {
    expect(sortReaders(rows, DEFAULT_READER_SORT).map(readerRowKey)).toEqual(['long', 'pid 7', 'short']);
  });

  it('keeps unknown figures last in either direction', () => {
    const byBytes = nextReaderSort(DEFAULT_READER_SORT, 'scanBytes');
    expect(byBytes).toEqual({ key: 'scanBytes', direction: 'descending' });
    expect(sortReaders(rows, byBytes).map(readerRowKey)).toEqual(['pid 7', 'long', 'short']);
    const flipped = nextReaderSort(byBytes, 'scanBytes');
    expect(sortReaders(rows, flipped).map(readerRowKey)).toEqual(['long', 'pid 7', 'short']);
  });

  it('sorts times earliest first when their column is pressed', () => {
    const byTime = nextReaderSort(DEFAULT_READER_SORT, 'firstReadAt');
    expect(sortReaders(rows, byTime).map(readerRowKey)).toEqual(['short', 'pid 7', 'long']);
  });
});

describe('intervalMarks', () => {
  it('places stretches on the range, clamped, a single sample at least minWidth wide', () => {
    expect(
      intervalMarks(
        [
          [-50, 100],
          [500, 500],
          [900, 2_000],
        ],
        { from: 0, to: 1_000 },
        100,
        2,
      ),
    ).toEqual([
      [0, 10],
      [50, 2],
      [90, 10],
    ]);
  });
});
