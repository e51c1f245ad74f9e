import { describe, expect, it } from 'vitest';
import { byteTicks, clockTicks, fittedClockTicks, formatClockTicks, niceTicks, ticksBackFrom } from './ticks.ts';

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

describe('clock ticks that fit their axis', () => {
  // A minute ending 1 s after a round 10 s: the last tick sits 1 s from the right end.
  const to = new Date(2026, 10, 30, 20, 34, 31).getTime();
  const from = to - 60_000;
  // What a label spans on an axis of `widthPx`, centred on its tick (6.5 px per character and more).
  const spans = (ticks: number[], widthPx: number): [number, number][] => {
    const labels = formatClockTicks(ticks);
    return ticks.map((t, i) => {
      const x = ((t - from) / (to - from)) * widthPx;
      const half = ((labels[i] ?? '').length * 6) / 2;
      return [x - half, x + half];
    });
  };

  it('leaves out a tick whose label would stick out of the right end', () => {
    const widthPx = 400;
    const all = clockTicks(from, to, 6);
    expect(spans(all, widthPx).at(-1)?.[1] ?? 0).toBeGreaterThan(widthPx + 12);
    const fitted = fittedClockTicks(from, to, widthPx, 12);
    expect(fitted.length).toBeGreaterThanOrEqual(3);
    for (const [, right] of spans(fitted, widthPx)) expect(right).toBeLessThanOrEqual(widthPx + 12);
  });

  it('takes fewer ticks on a narrow axis so labels do not run into each other', () => {
    for (const widthPx of [300, 420, 1_400]) {
      const fitted = fittedClockTicks(from, to, widthPx, 12);
      expect(fitted.length).toBeGreaterThanOrEqual(1);
      const boxes = spans(fitted, widthPx);
      for (let i = 1; i < boxes.length; i++)
        expect((boxes[i] as [number, number])[0]).toBeGreaterThan((boxes[i - 1] as [number, number])[1]);
    }
    expect(fittedClockTicks(from, to, 300, 12).length).toBeLessThan(clockTicks(from, to, 6).length);
    expect(fittedClockTicks(from, from, 300, 12)).toEqual([]);
  });
});
