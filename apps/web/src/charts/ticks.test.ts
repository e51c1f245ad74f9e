import { describe, expect, it } from 'vitest';
import { byteTicks, clockTicks, formatClockTicks, niceTicks, ticksBackFrom } from './ticks.ts';

describe('niceTicks', () => {
  it('picks round ticks that cover the maximum', () => {
    expect(niceTicks(9)).toEqual([0, 5, 10]);
    expect(niceTicks(12, 4)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(0.9, 4)).toEqual([0, 0.5, 1]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});

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

describe('ticksBackFrom', () => {
  it('counts back from the right edge, so the newest tick is the edge itself', () => {
    expect(ticksBackFrom(1_060_500, 1_000_500, 10_000)).toEqual([
      1_000_500, 1_010_500, 1_020_500, 1_030_500, 1_040_500, 1_050_500, 1_060_500,
    ]);
  });

  it('leaves out a tick that would fall before the window', () => {
    expect(ticksBackFrom(25_000, 0, 10_000)).toEqual([5_000, 15_000, 25_000]);
    expect(ticksBackFrom(25_000, 0, 0)).toEqual([]);
  });
});

describe('clock ticks of a past range', () => {
  it('falls on round times of day, about as many as asked', () => {
    const from = new Date(2026, 10, 30, 12, 3, 10).getTime();
    const to = from + 60 * 60_000;
    const ticks = clockTicks(from, to, 6);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.length).toBeLessThanOrEqual(6);
    for (const t of ticks) expect([new Date(t).getMinutes() % 10, new Date(t).getSeconds()]).toEqual([0, 0]);
    expect(formatClockTicks(ticks)[0]).toMatch(/^\d\d:\d\d$/);
  });

  it('labels sub-second steps with milliseconds', () => {
    const from = new Date(2026, 10, 30, 12, 0, 0, 40).getTime();
    const ticks = clockTicks(from, from + 1_000, 6);
    expect(formatClockTicks(ticks)[0]).toMatch(/^12:00:00\.\d{3}$/);
  });
});
