import { AUTO_RATE_START_HZ, chooseRate, type SamplingCost } from '@aioscope/core';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

/** How often the rate is reconsidered, and the window of round trips it looks at. */
export const GOVERNOR_PERIOD_MS = 10_000;

/**
 * `--rate auto` for one monitor: sums the fast tick's round trips (frame.sampleMs) over each
 * period and moves the ticker to core's chooseRate. Only the monitor's public feed and its rate
 * setter are used: the sampler knows nothing of budgets.
 */
export class RateGovernor {
  static readonly START_HZ = AUTO_RATE_START_HZ;
  private cost: SamplingCost = { samples: 0, roundTripMsSum: 0, windowMs: 0 };
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    monitor: TargetMonitor,
    budgetShare: number,
    onChange: (fromHz: number, toHz: number) => void,
    periodMs: number = GOVERNOR_PERIOD_MS,
  ) {
    this.unsubscribe = monitor.on('frame', (frame) => {
      this.cost.samples++;
      this.cost.roundTripMsSum += frame.sampleMs;
    });
    this.timer = setInterval(() => {
      const measured = { ...this.cost, windowMs: periodMs };
      this.cost = { samples: 0, roundTripMsSum: 0, windowMs: 0 };
      const current = monitor.summary().sampleRateHz;
      const next = chooseRate(current, measured, budgetShare);
      if (next === current) return;
      monitor.setSampleRate(next);
      onChange(current, next);
    }, periodMs);
    // A governor never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe();
  }
}
