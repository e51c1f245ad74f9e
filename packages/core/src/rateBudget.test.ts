import { describe, expect, it } from 'vitest';
import {
  AUTO_RATE_MAX_HZ,
  DEFAULT_RATE_BUDGET_SHARE,
  affordableRate,
  chooseRate,
  costShare,
  type SamplingCost,
} from './rateBudget.ts';

/** n round trips of `ms` each over 10 s of wall time. */
const measured = (n: number, ms: number): SamplingCost => ({ samples: n, roundTripMsSum: n * ms, windowMs: 10_000 });

describe('the sampling cost budget', () => {
  it('measures cost as round-trip time over wall time', () => {
    // 20 Hz × 0.25 ms = 5 ms per second: 0.5 % of a core.
    expect(costShare(measured(200, 0.25))).toBeCloseTo(0.005, 9);
    expect(costShare({ samples: 0, roundTripMsSum: 0, windowMs: 10_000 })).toBeNull();
  });

  it('affords the highest whole rate under the budget, within 1-100 Hz', () => {
    // 1 % of a core is 10 ms per second: 0.25 ms round trips afford 40 Hz.
    expect(affordableRate(0.25, DEFAULT_RATE_BUDGET_SHARE)).toBe(40);
    expect(affordableRate(0.3, DEFAULT_RATE_BUDGET_SHARE)).toBe(33);
    expect(affordableRate(0.05, DEFAULT_RATE_BUDGET_SHARE)).toBe(AUTO_RATE_MAX_HZ);
    expect(affordableRate(50, DEFAULT_RATE_BUDGET_SHARE)).toBe(1);
    expect(affordableRate(0.25, 0.05)).toBe(AUTO_RATE_MAX_HZ);
  });

  it('backs off at once when round trips grow (a busy server)', () => {
    expect(chooseRate(40, measured(400, 2), DEFAULT_RATE_BUDGET_SHARE)).toBe(5);
  });

  it('climbs by at most half again per decision, and settles', () => {
    const cheap = measured(200, 0.1); // affords 100 Hz
    const steps = [20];
    for (let i = 0; i < 6; i++) steps.push(chooseRate(steps[steps.length - 1] ?? 0, cheap, DEFAULT_RATE_BUDGET_SHARE));
    expect(steps).toEqual([20, 30, 45, 67, 100, 100, 100]);
  });

  it('keeps the rate for a small gain or too few samples', () => {
    expect(chooseRate(38, measured(380, 0.25), DEFAULT_RATE_BUDGET_SHARE)).toBe(38); // 40 is < 10 % more
    expect(chooseRate(20, measured(5, 5), DEFAULT_RATE_BUDGET_SHARE)).toBe(20);
  });
});
