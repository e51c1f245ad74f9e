import { describe, expect, it } from 'vitest';
import { rollup } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { busyShareOf, rollupRows } from './rollupRows.ts';

// The PostgreSQL 18.6 io_method=worker recording, spread over three seconds with one missing.
const recorded = buildPayloads(recordedServers()[0] as Parameters<typeof buildPayloads>[0]).frames;
const base = 1_800_000_000_000;
const frames: LiveFrame[] = recorded.map((frame, i) => ({ ...frame, t: base + (i % 2 === 0 ? 100 : 2_100) + i }));
frames.sort((a, b) => a.t - b.t);

describe('roll-ups as chart rows', () => {
  it('gives every step a row and a step without samples nulls, not zeros', () => {
    const points = rollup(frames, [], base, base + 3_000, 1_000);
    const rows = rollupRows(points, base, base + 3_000, 1_000, (p) => ({ max: p.readsInFlight.max }), ['max']);
    expect(rows.map((row) => row.t)).toEqual([base, base + 1_000, base + 2_000]);
    expect(rows[1]?.max).toBeNull();
    expect(rows[0]?.max).toBe(
      Math.max(...frames.filter((f) => f.t < base + 1_000).map((f) => f.inflight?.total.count ?? 0)),
    );
  });

  it('computes the busy share as the live view does, from sample counts', () => {
    const points = rollup(frames, [], base, base + 3_000, 3_000);
    const point = points[0];
    expect(point).toBeDefined();
    let busy = 0;
    let samples = 0;
    for (const frame of frames) {
      for (const worker of frame.ioWorkers) {
        samples++;
        if (worker.busy) busy++;
      }
    }
    expect(samples).toBeGreaterThan(0);
    expect(point === undefined ? undefined : busyShareOf(point)).toBe(busy / samples);
  });
});
