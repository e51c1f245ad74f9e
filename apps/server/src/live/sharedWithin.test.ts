import { afterEach, describe, expect, it, vi } from 'vitest';
import { sharedWithin } from './sharedWithin.ts';

describe('sharedWithin', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps its window on the monotonic clock: a wall clock set back does not stretch it', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let calls = 0;
    const ask = sharedWithin(1_000, () => Promise.resolve(++calls));
    await ask();
    vi.setSystemTime(Date.now() - 3_600_000);
    vi.advanceTimersByTime(1_000);
    expect(await ask()).toBe(2);
  });

  it('shares one call among the calls within the window, and calls again after it', async () => {
    let clock = 0;
    let calls = 0;
    const ask = sharedWithin(
      1_000,
      () => Promise.resolve(++calls),
      () => clock,
    );
    const [a, b] = await Promise.all([ask(), ask()]);
    clock = 999;
    const c = await ask();
    expect([a, b, c, calls]).toEqual([1, 1, 1, 1]);
    clock = 1_000;
    expect(await ask()).toBe(2);
    expect(calls).toBe(2);
  });

  it('does not share a call that failed once it has failed', async () => {
    let calls = 0;
    const ask = sharedWithin(
      1_000,
      () => (++calls === 1 ? Promise.reject(new Error('no answer')) : Promise.resolve(calls)),
      () => 0,
    );
    await expect(ask()).rejects.toThrow('no answer');
    expect(await ask()).toBe(2);
  });
});
