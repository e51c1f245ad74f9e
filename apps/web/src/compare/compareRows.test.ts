import { describe, expect, it } from 'vitest';
import { compareSide, compareSides } from '@aioscope/core';
import { sideOf17, sideOfRecording } from '@aioscope/core/testing';
import { FIGURE_ROWS, figureText, settingRows, sourceText, waitText } from './compareRows.ts';

const result = compareSides(compareSide(sideOfRecording('pg18.4-embedded-worker')), compareSide(sideOf17()));
const bytesPerRead = FIGURE_ROWS[0];

describe('compare rows', () => {
  it('reads a measured figure as its value and a 17 one as "cannot be measured on 17"', () => {
    if (bytesPerRead === undefined) throw new Error('a bytes per read row');
    expect(figureText(result.a, 'bytesPerRead', bytesPerRead.format)).toBe('124.6\u00a0kB');
    expect(figureText(result.b, 'bytesPerRead', bytesPerRead.format)).toBe(
      'cannot be measured on 17: pg_stat_io counts blocks',
    );
    expect(figureText(result.b, 'readsInFlightMean', String)).toBe('pg_aios exists from PostgreSQL 18');
  });

  it('names the source and rate once when both sides share them', () => {
    expect(sourceText(result.a, result.a, 'bytesPerRead')).toBe('pg_stat_io read_bytes / reads over the range · 1 Hz');
  });

  it('lists the settings that differ first, marked', () => {
    const rows = settingRows(result.a, result.b, result.settingsDiffer);
    const firstSame = rows.findIndex((row) => !row.differs);
    expect(rows.slice(0, firstSame === -1 ? rows.length : firstSame).map((row) => row.name)).toEqual(
      result.settingsDiffer.map((difference) => difference.name).sort(),
    );
    expect(rows.find((row) => row.name === 'io_combine_limit')).toMatchObject({
      a: '128kB',
      b: '256kB',
      differs: true,
    });
  });

  it('reads a wait key event first', () => {
    expect(waitText('client backend:AioIoCompletion')).toBe('AioIoCompletion (client backend)');
  });
});
