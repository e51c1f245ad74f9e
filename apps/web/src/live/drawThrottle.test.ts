import { describe, expect, it } from 'vitest';
import { DrawBudget } from './drawThrottle.ts';

/**
 * Samples arriving every `everyMs`, each drawn as soon as the budget allows (a task: drawThrottle);
 * the first draw is held up `firstDelayMs` (a long task). Returns each sample's wait until its draw.
 */
function waits(budget: DrawBudget, options: { samples: number; everyMs: number; firstDelayMs: number }): number[] {
  const result: number[] = [];
  let drawnUpTo = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < options.samples; index++) {
    const arrival = 1_000 + index * options.everyMs;
    const ready = Math.max(arrival + (index === 0 ? options.firstDelayMs : 0), drawnUpTo);
    const drawn = ready + budget.waitAt(ready);
    budget.spend(drawn);
    drawnUpTo = drawn;
    result.push(drawn - arrival);
  }
  return result;
}

describe('DrawBudget', () => {
  it('allows a draw at once while it has an interval in hand, then makes the next wait', () => {
    const budget = new DrawBudget(40, 1);
    expect(budget.waitAt(0)).toBe(0);
    budget.spend(0);
    expect(budget.waitAt(10)).toBe(30);
    expect(budget.waitAt(40)).toBe(0);
  });

  it('keeps the rate at one draw per interval over time, with a burst in hand', () => {
    const budget = new DrawBudget(40, 2);
    let draws = 0;
    // Asked every 10 ms (100 Hz samples) for 10 s.
    for (let now = 0; now < 10_000; now += 10) {
      if (budget.waitAt(now) === 0) {
        budget.spend(now);
        draws++;
      }
    }
    expect(draws).toBeLessThanOrEqual(10_000 / 40 + 2);
    expect(draws).toBeGreaterThanOrEqual(10_000 / 40 - 1);
  });

  it('lets 20 Hz samples after one late draw go at once instead of each waiting for the interval', () => {
    const caughtUp = waits(new DrawBudget(40, 2), { samples: 40, everyMs: 50, firstDelayMs: 48 });
    expect(caughtUp.slice(1).every((wait) => wait === 0)).toBe(true);

    // A plain minimum interval (a budget of one draw) passes the delay on to the next samples.
    const chained = waits(new DrawBudget(40, 1), { samples: 40, everyMs: 50, firstDelayMs: 48 });
    expect(chained.slice(1, 5)).toEqual([38, 28, 18, 8]);
  });
});
