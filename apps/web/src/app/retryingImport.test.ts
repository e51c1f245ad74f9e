import { describe, expect, it } from 'vitest';
import { failedModuleUrl, retryingImport } from './retryingImport.ts';

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

  it('imports the script the failure named under a URL of its own, since the browser keeps a failed import', async () => {
    const chunk = 'http://127.0.0.1:7070/assets/StaticCharts-B1x2.js';
    const failing = (): Promise<string> =>
      Promise.reject(new TypeError(`Failed to fetch dynamically imported module: ${chunk}`));
    const asked: string[] = [];
    const byUrl = async (url: string): Promise<unknown> => {
      asked.push(url);
      if (asked.length < 2) throw new TypeError(`Failed to fetch dynamically imported module: ${url}`);
      return 'module';
    };
    await expect(retryingImport(failing, [10, 20, 30], async () => undefined, byUrl)).resolves.toBe('module');
    // Each retry its own URL (a failed one is kept too), all of the first failure's script.
    expect(asked).toEqual([`${chunk}?retry=1`, `${chunk}?retry=2`]);
  });

  it('imports the same way again when the failure names no script (Safari: "Importing a module script failed.")', async () => {
    const loader = flakyLoader(1);
    const byUrl = async (): Promise<unknown> => {
      throw new Error('not to be asked');
    };
    await expect(retryingImport(loader.load, [10], async () => undefined, byUrl)).resolves.toBe('module');
    expect(loader.calls()).toBe(2);
  });
});

describe('failedModuleUrl', () => {
  it('reads the URL from Chromium’s and Firefox’s messages, and nothing from one without', () => {
    expect(failedModuleUrl(new TypeError('Failed to fetch dynamically imported module: http://h:1/a/B-1.js'))).toBe(
      'http://h:1/a/B-1.js',
    );
    expect(failedModuleUrl(new TypeError('error loading dynamically imported module: https://h/a.js'))).toBe(
      'https://h/a.js',
    );
    expect(failedModuleUrl(new TypeError('Importing a module script failed.'))).toBeNull();
  });
});
