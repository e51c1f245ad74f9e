import { describe, expect, it } from 'vitest';
import { waitAtMost } from './waitAtMost.ts';

describe('waitAtMost', () => {
  it('returns when the work ends, not at the bound (an hour here: the test would time out)', async () => {
    let done = false;
    await waitAtMost(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = true;
    }, 3_600_000);
    expect(done).toBe(true);
  });

  it('returns at the bound when the work never ends', async () => {
    let returned = false;
    await Promise.race([
      waitAtMost(() => new Promise(() => undefined), 30).then(() => (returned = true)),
      new Promise((resolve) => setTimeout(resolve, 3_000)),
    ]);
    expect(returned).toBe(true);
  });

  it('never fails, whether the work throws or rejects', async () => {
    await expect(
      waitAtMost(() => {
        throw new Error('thrown');
      }, 1_000),
    ).resolves.toBeUndefined();
    await expect(waitAtMost(() => Promise.reject(new Error('rejected')), 1_000)).resolves.toBeUndefined();
  });
});
