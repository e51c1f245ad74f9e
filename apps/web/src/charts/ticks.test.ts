import { describe, expect, it } from 'vitest';
import { byteTicks } from './ticks.ts';

describe('byteTicks', () => {
  it('steps in powers of two and covers the maximum', () => {
    const ticks = byteTicks(1.3 * 1024 * 1024);
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(1.3 * 1024 * 1024 - 512 * 1024);
    const step = (ticks[1] ?? 0) - (ticks[0] ?? 0);
    expect(Math.log2(step) % 1).toBe(0);
    expect(ticks.length).toBeLessThanOrEqual(7);
  });

  it('honours a minimum step and an empty axis', () => {
    expect(byteTicks(144 * 1024, 32 * 1024)).toEqual([0, 32768, 65536, 98304, 131072, 163840]);
    expect(byteTicks(0)).toEqual([0]);
  });
});
