import { describe, expect, it } from 'vitest';
import { bucketValues, rollup, SERIES, type SeriesLine } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { seriesReducer } from '../charts/seriesLines.ts';
import { rollupLineRows, rollupRows } from './rollupRows.ts';

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
    expect(point === undefined ? undefined : SERIES.workerBusy.ofRollup(point, 'mean')).toBe(busy / samples);
  });

  it('draws a series from roll-ups under the same key and value as from a bucket of its frames', () => {
    const lines: SeriesLine[] = [
      { series: SERIES.readsInFlight, stat: 'max' },
      { series: SERIES.workerBusy, stat: 'mean' },
    ];
    const from = base;
    const to = base + 3_000;
    const rows = rollupLineRows(
      { targetId: 't', from, to, stepMs: 1_000, points: rollup(frames, [], from, to, 1_000) },
      lines,
    );
    const reducer = seriesReducer(lines);
    const firstSecond = frames.filter((frame) => frame.t < base + 1_000);
    expect(rows[0]).toEqual({ t: base, ...reducer.reduce(firstSecond) });
    expect(rows[0]).toEqual({ t: base, ...bucketValues(lines, { frames: firstSecond, deltas: [] }) });
    expect(rows[0]?.['readsInFlight:max']).toBeGreaterThan(0);
    expect(rows[1]).toEqual({ t: base + 1_000, ...reducer.empty });
  });
});
