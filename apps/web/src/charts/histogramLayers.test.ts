import { describe, expect, it } from 'vitest';
import { categoryTicks, countTicks, histogramData } from './histogramLayers.ts';
import { medianData } from './medianLayers.ts';

describe('countTicks', () => {
  it('counts in whole numbers from 0 up to at least the tallest bar', () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    const ticks = countTicks(1234);
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(1234);
    expect(ticks.every((tick) => Number.isInteger(tick))).toBe(true);
  });
});

describe('categoryTicks', () => {
  const sizes = Array.from({ length: 128 }, (_, index) => index + 1);

  it('labels every bin that has room, and every n-th on a narrow plot, from the first', () => {
    expect(categoryTicks(sizes.slice(0, 16), 600)).toEqual(sizes.slice(0, 16));
    const narrow = categoryTicks(sizes, 300);
    expect(narrow[0]).toBe(1);
    expect(narrow.length).toBeLessThanOrEqual(Math.floor(300 / 18));
    expect(narrow[1]).toBe(1 + Math.ceil(128 / Math.floor(300 / 18)));
  });
});

describe('chart columns', () => {
  it('puts bins and medians in the column layout uPlot draws', () => {
    expect(
      histogramData([
        { x: 1, count: 4 },
        { x: 2, count: 0 },
      ]),
    ).toEqual([
      [1, 2],
      [4, 0],
    ]);
    expect(medianData([{ label: 'eic=1', median: 12, min: 10, max: 15 }])).toEqual([[0], [12]]);
  });
});
