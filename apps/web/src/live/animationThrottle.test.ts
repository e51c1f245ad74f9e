import { describe, expect, it } from 'vitest';
import { DrawBudget } from './animationThrottle.ts';

const VSYNC_MS = 1000 / 60;

/**
 * Samples arriving every `everyMs`, each drawn at the first animation tick the budget allows; the
 * first draw is held up `firstDelayMs` (a long task). Returns each sample's wait until its draw.
 */
function waits(budget: DrawBudget, options: { samples: number; everyMs: number; firstDelayMs: number }): number[] {
  const result: number[] = [];
  let drawnUpTo = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < options.samples; index++) {
    const arrival = 1_000 + index * options.everyMs;
    const ready = Math.max(arrival + (index === 0 ? options.firstDelayMs : 0), drawnUpTo);
    const allowed = ready + budget.waitAt(ready);
    const drawn = Math.ceil(allowed / VSYNC_MS) * VSYNC_MS;
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

  it('lets 20 Hz samples catch up after one late draw instead of each waiting ~50 ms', () => {
    const caughtUp = waits(new DrawBudget(40, 2), { samples: 40, everyMs: 50, firstDelayMs: 48 });
    expect(Math.max(...caughtUp.slice(5))).toBeLessThan(VSYNC_MS + 1);

    // A plain minimum interval (a budget of one draw) keeps the delay going, sample after sample.
    const chained = waits(new DrawBudget(40, 1), { samples: 40, everyMs: 50, firstDelayMs: 48 });
    expect(chained.slice(5).filter((wait) => wait > 40).length).toBeGreaterThan(10);
  });
});
