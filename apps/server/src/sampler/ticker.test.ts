import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTicker } from './ticker.ts';

// Fake timers and a fake performance clock: the ticker's arithmetic is tested exactly, and no test
// depends on how busy the machine is.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('startTicker', () => {
  it('runs its first tick after firstTickInMs, then on the grid from there', async () => {
    const startedAt: number[] = [];
    const ticker = startTicker({
      intervalMs: 50,
      firstTickInMs: 20,
      run: async () => void startedAt.push(performance.now()),
    });
    await vi.advanceTimersByTimeAsync(180);
    ticker.stop();
    expect(startedAt).toEqual([20, 70, 120, 170]);
  });

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
    await vi.advanceTimersByTimeAsync(300);
    ticker.stop();
    expect(maxConcurrent).toBe(1);
    // A 35 ms tick on a 10 ms grid ends at most half an interval after a slot, so the next one
    // starts at once (a fake setTimeout waits at least 1 ms: runs at 0, 36, 72, 110, …, 292), and
    // the slots in between (2 or 3 per run, 8 finished runs) are skipped, never queued.
    expect(runs).toBe(9);
    expect(skipped).toBe(21);
  });

  it('runs a tick that is less than half an interval late instead of skipping its slot', async () => {
    let runs = 0;
    let skipped = 0;
    const lateBy: number[] = [];
    const ticker = startTicker({
      intervalMs: 40,
      // Every other tick overruns its slot by 10 ms (a quarter of the interval).
      run: () => sleep(runs++ % 2 === 0 ? 50 : 1),
      onSkipped: (count) => {
        skipped += count;
      },
      onLate: (ms) => lateBy.push(ms),
    });
    await vi.advanceTimersByTimeAsync(650);
    ticker.stop();
    // Skipping on every overrun would have lost one slot per slow tick (about 8 here).
    expect(skipped).toBe(0);
    expect(lateBy.length).toBeGreaterThanOrEqual(7);
    expect(lateBy.every((ms) => ms === 10)).toBe(true);
    expect(runs).toBe(17);
  });

  it('skips a slot when the tick ends more than half an interval after it', async () => {
    let runs = 0;
    const skips: number[] = [];
    const ticker = startTicker({
      intervalMs: 10,
      run: () => sleep(runs++ === 0 ? 16 : 1),
      onSkipped: (count) => skips.push(count),
    });
    await vi.advanceTimersByTimeAsync(25);
    ticker.stop();
    // The first tick ends 6 ms after slot 10 (more than half of 10 ms): slot 10 is skipped.
    expect(skips).toEqual([1]);
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
    await vi.advanceTimersByTimeAsync(60);
    ticker.stop();
    expect(runs).toBe(13);
    expect(errors.length).toBe(runs);
  });

  it('stops: no tick runs after stop()', async () => {
    let runs = 0;
    const ticker = startTicker({ intervalMs: 5, run: () => Promise.resolve(void (runs += 1)) });
    await vi.advanceTimersByTimeAsync(30);
    ticker.stop();
    const atStop = runs;
    expect(atStop).toBe(7);
    await vi.advanceTimersByTimeAsync(30);
    expect(runs).toBe(atStop);
  });
});

describe('startTicker at a rate changed while running', () => {
  it('reschedules a waiting tick at the new interval from the previous slot', async () => {
    const startedAt: number[] = [];
    const ticker = startTicker({ intervalMs: 50, run: () => Promise.resolve(void startedAt.push(performance.now())) });
    await vi.advanceTimersByTimeAsync(120); // runs at 0, 50, 100; waits for 150
    ticker.setIntervalMs(10);
    await vi.advanceTimersByTimeAsync(20); // 110 is past: a fresh grid from 120
    ticker.stop();
    expect(startedAt).toEqual([0, 50, 100, 120, 130, 140]);
  });

  it('lets a running tick finish, then follows the new interval', async () => {
    const startedAt: number[] = [];
    const ticker = startTicker({
      intervalMs: 10,
      run: async () => {
        startedAt.push(performance.now());
        await sleep(5);
      },
    });
    await vi.advanceTimersByTimeAsync(22); // runs at 0, 10, 20 (running until 25)
    ticker.setIntervalMs(40);
    await vi.advanceTimersByTimeAsync(100);
    ticker.stop();
    expect(startedAt).toEqual([0, 10, 20, 60, 100]);
  });
});
