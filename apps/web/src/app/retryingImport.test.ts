import { describe, expect, it } from 'vitest';
import { retryingImport } from './retryingImport.ts';

/** A loader that fails `failures` times (as a fetch to a restarting server does), then succeeds. */
function flakyLoader(failures: number): { load: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    load: () => {
      calls += 1;
      return calls <= failures
        ? Promise.reject(new TypeError('Failed to fetch dynamically imported module'))
        : Promise.resolve('module');
    },
    calls: () => calls,
  };
}

describe('retryingImport', () => {
  it('tries again after each pause until the chunk loads', async () => {
    const loader = flakyLoader(2);
    const waited: number[] = [];
    const result = await retryingImport(loader.load, [10, 20, 30], async (ms) => void waited.push(ms));
    expect(result).toBe('module');
    expect(loader.calls()).toBe(3);
    expect(waited).toEqual([10, 20]);
  });

  it('gives up with the last error once the pauses are used up', async () => {
    const loader = flakyLoader(10);
    const waited: number[] = [];
    await expect(retryingImport(loader.load, [10, 20], async (ms) => void waited.push(ms))).rejects.toThrow(
      'Failed to fetch dynamically imported module',
    );
    expect(loader.calls()).toBe(3);
    expect(waited).toEqual([10, 20]);
  });

  it('loads once when the first attempt works', async () => {
    const loader = flakyLoader(0);
    await expect(retryingImport(loader.load, [10], async () => undefined)).resolves.toBe('module');
    expect(loader.calls()).toBe(1);
  });
});
