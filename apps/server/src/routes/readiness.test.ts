import { describe, expect, it } from 'vitest';
import { readinessOf } from './readiness.ts';

describe('readinessOf', () => {
  it('is ready with the embedded store and no adapter: nothing to reach', () => {
    expect(readinessOf({})).toEqual({
      ready: true,
      store: { ok: true, kind: 'embedded', reason: null },
      adapter: { ok: true, kind: 'none', reason: null },
    });
  });

  it('is not ready when the shared store does not answer, naming why', () => {
    const readiness = readinessOf({
      store: () => ({ connected: false, storeError: 'connect ECONNREFUSED 127.0.0.1:5432' }),
      adapter: () => ({ ok: true, reason: null }),
    });
    expect(readiness.ready).toBe(false);
    expect(readiness.store).toEqual({
      ok: false,
      kind: 'postgres',
      reason: 'the shared store does not answer: connect ECONNREFUSED 127.0.0.1:5432',
    });
    expect(readiness.adapter.ok).toBe(true);
  });

  it('is not ready when the adapter’s Redis is lost, with the store fine', () => {
    const readiness = readinessOf({
      store: () => ({ connected: true, storeError: null }),
      adapter: () => ({ ok: false, reason: 'Redis gone' }),
    });
    expect(readiness).toEqual({
      ready: false,
      store: { ok: true, kind: 'postgres', reason: null },
      adapter: { ok: false, kind: 'redis', reason: 'Redis gone' },
    });
  });

  it('is not ready when the store answers but recording into it is paused, naming why', () => {
    const readiness = readinessOf({
      store: () => ({ connected: true, storeError: null }),
      recording: () => ({
        state: 'paused',
        reason: 'the store was written by a newer aioscope (version 9; this one knows 8)',
      }),
    });
    expect(readiness.ready).toBe(false);
    expect(readiness.store).toEqual({
      ok: false,
      kind: 'postgres',
      reason:
        'recording into the shared store is paused: the store was written by a newer aioscope (version 9; this one knows 8)',
    });
    expect(
      readinessOf({
        store: () => ({ connected: true, storeError: null }),
        recording: () => ({ state: 'recording', reason: null }),
      }).ready,
    ).toBe(true);
  });
});
