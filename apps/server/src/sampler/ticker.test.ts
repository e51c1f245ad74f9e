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
