import { describe, expect, it } from 'vitest';
import { bucketDomainEnd, IDLE_RENDER_MS } from './useBucketClock.ts';

describe('bucketDomainEnd', () => {
  const bucketMs = 200;

  it('ends the window at the start of the bucket the newest frame opened', () => {
    // Frame at ...1_150 opened the bucket [1_000, 1_200): [800, 1_000) is complete.
    expect(bucketDomainEnd(1_150, 1_160, 10, bucketMs)).toBe(1_000);
    expect(bucketDomainEnd(1_200, 1_205, 5, bucketMs)).toBe(1_200);
  });

  it('does not run ahead of the frames while they keep coming', () => {
    expect(bucketDomainEnd(1_150, 5_000, IDLE_RENDER_MS - 1, bucketMs)).toBe(1_000);
  });

  it('follows the server clock once frames stop, so the gap shows', () => {
    expect(bucketDomainEnd(1_150, 4_321, IDLE_RENDER_MS, bucketMs)).toBe(4_200);
    expect(bucketDomainEnd(undefined, 4_321, null, bucketMs)).toBe(4_200);
  });

  it('never moves back when the estimated server clock lags the frames', () => {
    expect(bucketDomainEnd(9_999, 4_321, 2 * IDLE_RENDER_MS, bucketMs)).toBe(9_800);
  });
});
