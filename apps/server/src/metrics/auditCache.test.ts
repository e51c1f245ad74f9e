import { describe, expect, it } from 'vitest';
import type { AuditReport } from '@aioscope/spec';
import { AUDIT_REFRESH_MS, AuditCache } from './auditCache.ts';

function report(checkedAt: number): AuditReport {
  return { targetId: 't', checkedAt, findings: [] };
}

describe('AuditCache', () => {
  it('reads the audit at most once per refresh interval however often it is asked', async () => {
    let now = 0;
    let reads = 0;
    const cache = new AuditCache(
      () => Promise.resolve(report(++reads)),
      () => now,
    );
    expect(cache.current(true)).toBeNull();
    await cache.settled();
    for (let i = 0; i < 10; i++) expect(cache.current(true)?.checkedAt).toBe(1);
    now = AUDIT_REFRESH_MS - 1;
    cache.current(true);
    expect(reads).toBe(1);
    now = AUDIT_REFRESH_MS;
    cache.current(true);
    await cache.settled();
    expect(cache.current(true)?.checkedAt).toBe(2);
  });

  it('keeps the previous report when a refresh fails, and does not read while refreshing is not allowed', async () => {
    let now = 0;
    let fail = false;
    let reads = 0;
    const cache = new AuditCache(
      () => {
        reads++;
        return fail ? Promise.reject(new Error('connection refused')) : Promise.resolve(report(now));
      },
      () => now,
    );
    cache.current(true);
    await cache.settled();
    fail = true;
    now = AUDIT_REFRESH_MS;
    cache.current(true);
    await cache.settled();
    expect(cache.current(false)?.checkedAt).toBe(0);
    now = 10 * AUDIT_REFRESH_MS;
    cache.current(false);
    expect(reads).toBe(2);
  });

  it('tells listeners of each new report, not of a failed read; a listener that throws costs the others nothing', async () => {
    let fail = false;
    let reads = 0;
    const cache = new AuditCache(
      () => (fail ? Promise.reject(new Error('connection refused')) : Promise.resolve(report(++reads))),
      () => 0,
    );
    const seen: number[] = [];
    cache.onReport(() => {
      throw new Error('a broken reader');
    });
    const unsubscribe = cache.onReport((next) => seen.push(next.checkedAt));
    cache.current(true);
    await cache.settled();
    fail = true;
    await cache.refresh();
    fail = false;
    await cache.refresh(); // within the interval: read anyway
    expect(seen).toEqual([1, 2]);
    expect(cache.current(false)?.checkedAt).toBe(2);
    unsubscribe();
    await cache.refresh();
    expect(seen).toEqual([1, 2]);
  });
});
