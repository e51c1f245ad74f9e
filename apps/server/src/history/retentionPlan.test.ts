import { describe, expect, it } from 'vitest';
import { planRetention, ROLLUP_TRIM_MS } from './retentionPlan.ts';
import { RAW_CHUNK_MS } from './storeSchema.ts';

const HOUR = 3_600_000;
const limits = { rawMs: 24 * HOUR, rollupMs: 30 * 24 * HOUR, maxBytes: 1000 };
const now = 1_000 * 24 * HOUR + 5 * 60_000; // 5 minutes into a chunk
const current = Math.floor(now / RAW_CHUNK_MS);
const perDay = (24 * HOUR) / RAW_CHUNK_MS;

describe('planRetention', () => {
  it('drops raw chunks wholly older than the raw retention, and roll-ups older than theirs', () => {
    const chunks = [current - perDay - 1, current - perDay, current - perDay + 1, current];
    const plan = planRetention({ now, limits, rawChunks: chunks, usedBytes: 10, oldestRollupT: 0 });
    // current - perDay ends 5 minutes after the cutoff: it still holds samples younger than 24 h.
    expect(plan.dropRawChunks).toEqual([current - perDay - 1]);
    expect(plan.rollupsBefore).toBe(now - limits.rollupMs);
  });

  it('over the size cap drops the oldest raw chunk first, never the one being written', () => {
    const chunks = [current, current - 3, current - 1, current - 2];
    const plan = planRetention({ now, limits, rawChunks: chunks, usedBytes: 2000, oldestRollupT: 0 });
    expect(plan.dropRawChunks).toEqual([current - 3]);
    expect(planRetention({ now, limits, rawChunks: [current], usedBytes: 2000, oldestRollupT: null })).toEqual({
      dropRawChunks: [],
      rollupsBefore: now - limits.rollupMs,
    });
  });

  it('over the cap with only the live chunk left, trims the oldest hour of roll-ups but not the last hour', () => {
    const oldest = now - 10 * HOUR;
    const plan = planRetention({ now, limits, rawChunks: [current], usedBytes: 2000, oldestRollupT: oldest });
    expect(plan).toEqual({ dropRawChunks: [], rollupsBefore: oldest + ROLLUP_TRIM_MS });
    const recent = planRetention({ now, limits, rawChunks: [], usedBytes: 2000, oldestRollupT: now - 1000 });
    expect(recent.rollupsBefore).toBe(now - ROLLUP_TRIM_MS);
  });

  it('under the cap keeps everything young enough', () => {
    const plan = planRetention({ now, limits, rawChunks: [current - 2, current], usedBytes: 999, oldestRollupT: 0 });
    expect(plan.dropRawChunks).toEqual([]);
  });
});
