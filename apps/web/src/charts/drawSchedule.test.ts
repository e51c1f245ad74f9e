import { describe, expect, it } from 'vitest';
import { drawDue, OFF_SCREEN_REDRAW_MS } from './drawSchedule.ts';

describe('drawDue: charts off screen draw seldom, never not at all', () => {
  it('draws a chart on screen at every update', () => {
    expect(drawDue(true, { at: 1_000, empty: false }, 1_001)).toBe(true);
  });

  it('draws a chart off screen at first, so a capture never finds it blank', () => {
    expect(drawDue(false, { at: null, empty: true }, 0)).toBe(true);
  });

  it('draws the first data of a chart off screen at once, not up to OFF_SCREEN_REDRAW_MS later', () => {
    expect(drawDue(false, { at: 10_000, empty: true }, 10_500)).toBe(true);
  });

  it('skips the updates of a chart off screen until its last drawing is OFF_SCREEN_REDRAW_MS old', () => {
    const at = 10_000;
    // Two chart buckets a second: nine of every ten updates are skipped.
    const updates = Array.from({ length: 10 }, (_, i) => at + (i + 1) * 500);
    expect(updates.filter((now) => drawDue(false, { at, empty: false }, now))).toEqual([at + OFF_SCREEN_REDRAW_MS]);
  });
});
