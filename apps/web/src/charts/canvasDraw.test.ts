import { describe, expect, it } from 'vitest';
import { niceTicks, stack } from './canvasDraw.ts';

describe('canvas chart helpers', () => {
  it('picks round ticks that cover the maximum', () => {
    expect(niceTicks(9)).toEqual([0, 5, 10]);
    expect(niceTicks(12, 4)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(0.9, 4)).toEqual([0, 0.5, 1]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it('stacks series and keeps gaps as gaps', () => {
    const rows = [
      { t: 0, a: 1, b: 2 },
      { t: 1, a: null, b: null },
    ];
    expect(stack(rows, ['a', 'b'])).toEqual([
      [[0, 1], null],
      [[1, 3], null],
    ]);
  });
});
