import { describe, expect, it } from 'vitest';
import { emptyColumns, fillBucketColumns, fillStripColumns, withUnit, yAxisFor } from './plotData.ts';

describe('fillBucketColumns', () => {
  const rows = [
    { t: 1_000, a: 1, b: 2 },
    { t: 1_500, a: null, b: null },
    { t: 2_000, a: 0.5, b: 0 },
  ];

  it('puts x at the middle of each bucket and stacks running totals, keeping gaps as gaps', () => {
    const columns = fillBucketColumns(emptyColumns(0), rows, ['a', 'b'], 500, true);
    expect(columns.x).toEqual([1_250, 1_750, 2_250]);
    expect(columns.ys).toEqual([
      [1, null, 0.5],
      [3, null, 0.5],
    ]);
  });

  it('passes line values through and reuses its arrays', () => {
    const into = emptyColumns(3);
    const x = into.x;
    const columns = fillBucketColumns(into, rows, ['a', 'b'], 500, false);
    expect(columns.x).toBe(x);
    expect(columns.ys).toEqual([
      [1, null, 0.5],
      [2, null, 0],
    ]);
    fillBucketColumns(into, rows.slice(0, 1), ['b'], 500, false);
    expect(into).toEqual({ x: [1_250], ys: [[2]] });
  });
});

describe('yAxisFor', () => {
  const columns = {
    x: [0, 1],
    ys: [
      [1, null],
      [3, 9],
    ],
  };

  it('covers the data and the reference lines with round ticks', () => {
    expect(yAxisFor(columns, { yDomain: [0, 'auto'], references: [] })).toEqual({ min: 0, max: 10, ticks: [0, 5, 10] });
    expect(yAxisFor(columns, { yDomain: [0, 'auto'], references: [{ y: 14 }] }).max).toBe(15);
  });

  it('keeps explicit limits and ticks', () => {
    expect(yAxisFor(columns, { yDomain: [0, 1], references: [] })).toEqual({ min: 0, max: 1, ticks: [0, 0.5, 1] });
    expect(yAxisFor(columns, { yDomain: [0, 64], yTicks: [0, 32, 64], references: [] }).ticks).toEqual([0, 32, 64]);
  });
});

describe('fillStripColumns', () => {
  const at = (t: number, v: number | null): { t: number; v: number | null } => ({ t, v });
  const value = (sample: { v: number | null }): number | null => sample.v;

  it('holds every sample until the next and the newest for one interval', () => {
    const into = { x: [], y: [] };
    const summary = fillStripColumns(into, [at(0, 1), at(50, 2), at(100, 4), at(150, 3)], value, {
      fromT: 50,
      sampleIntervalMs: 50,
    });
    expect(summary).toEqual({ samples: 3, max: 4 });
    expect(into).toEqual({ x: [50, 100, 150, 200], y: [2, 4, 3, 3] });
  });

  it('breaks the line after a silence of more than 2.5 intervals and at a sample without a value', () => {
    const into = { x: [], y: [] };
    fillStripColumns(into, [at(0, 1), at(50, 2), at(300, 5), at(350, null), at(400, 6)], value, {
      fromT: 0,
      sampleIntervalMs: 50,
    });
    expect(into).toEqual({
      x: [0, 50, 100, 200, 300, 350, 400, 450],
      y: [1, 2, 2, null, 5, null, 6, 6],
    });
  });

  it('draws nothing without samples in the window', () => {
    const into = { x: [1], y: [1] };
    expect(fillStripColumns(into, [at(0, 1)], value, { fromT: 10, sampleIntervalMs: 50 })).toEqual({
      samples: 0,
      max: 0,
    });
    expect(into).toEqual({ x: [], y: [] });
  });
});

describe('withUnit', () => {
  it('names what a bare number counts and leaves formatted units alone', () => {
    expect(withUnit('4.5', 'reads')).toBe('4.5 reads');
    expect(withUnit('512 kB', 'bytes')).toBe('512 kB');
    expect(withUnit('12 %', 'busy')).toBe('12 %');
    expect(withUnit('3', '')).toBe('3');
  });
});
