import { describe, expect, it } from 'vitest';
import { startTicker } from './ticker.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('startTicker', () => {
  it('never overlaps a slow tick and counts the skipped slots', async () => {
    let running = 0;
    let maxConcurrent = 0;
    let runs = 0;
    let skipped = 0;
    const ticker = startTicker({
      intervalMs: 10,
      run: async () => {
        running += 1;
        maxConcurrent = Math.max(maxConcurrent, running);
        runs += 1;
        await sleep(35);
        running -= 1;
      },
      onSkipped: (count) => {
        skipped += count;
      },
    });
    await sleep(300);
    ticker.stop();
    expect(maxConcurrent).toBe(1);
    expect(runs).toBeGreaterThan(3);
    // Each 35 ms tick covers about three 10 ms slots: two or three of them are skipped.
    expect(skipped).toBeGreaterThanOrEqual(runs * 2 - 2);
  });

  it('runs a tick that is less than half an interval late instead of skipping its slot', async () => {
    let runs = 0;
    let skipped = 0;
    let late = 0;
    const ticker = startTicker({
      intervalMs: 40,
      // Every other tick overruns its slot by 10 ms (a quarter of the interval).
      run: () => sleep(runs++ % 2 === 0 ? 50 : 1),
      onSkipped: (count) => {
        skipped += count;
      },
      onLate: () => {
        late += 1;
      },
    });
    await sleep(650);
    ticker.stop();
    expect(late).toBeGreaterThanOrEqual(3);
    // Skipping on every overrun would have lost one slot per slow tick (about 8 here).
    expect(skipped).toBeLessThanOrEqual(1);
    expect(runs).toBeGreaterThanOrEqual(12);
  });

  it('keeps running after a tick throws and reports the error', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const ticker = startTicker({
      intervalMs: 5,
      run: () => {
        runs += 1;
        return Promise.reject(new Error('boom'));
      },
      onError: (error) => errors.push(error),
    });
    await sleep(60);
    ticker.stop();
    expect(runs).toBeGreaterThan(2);
    expect(errors.length).toBe(runs);
  });

  it('stops: no tick runs after stop()', async () => {
    let runs = 0;
    const ticker = startTicker({ intervalMs: 5, run: () => Promise.resolve(void (runs += 1)) });
    await sleep(30);
    ticker.stop();
    const atStop = runs;
    await sleep(30);
    expect(runs).toBe(atStop);
  });
});
