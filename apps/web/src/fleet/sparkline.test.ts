import { describe, expect, it } from 'vitest';
import { rollup } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { matchesLabelFilter, newestValue, sparklinePath } from './sparkline.ts';

// The embedded PostgreSQL 18 recording spread over seconds 0, 1 and 3 (second 2 missing).
const recorded = buildPayloads(recordedServers()[0] as Parameters<typeof buildPayloads>[0]).frames;
const base = 1_800_000_000_000;
const seconds = [0, 1, 3];
const frames: LiveFrame[] = recorded
  .map((frame, i) => ({ ...frame, t: base + (seconds[i % 3] ?? 0) * 1_000 + i }))
  .sort((a, b) => a.t - b.t);
const points = rollup(frames, [], base, base + 4_000, 1_000);
const reads = (point: (typeof points)[number]): number => point.readsInFlight.max;

describe('overview sparklines', () => {
  it('draws one point per step and breaks the line over a missing second', () => {
    const d = sparklinePath(points, reads, {
      from: base,
      to: base + 4_000,
      stepMs: 1_000,
      top: 10,
      width: 100,
      height: 20,
    });
    expect(d.match(/[ML]/g)).toEqual(['M', 'L', 'M']);
    expect(d.startsWith('M12.5,')).toBe(true);
    // Second 3 stands alone between the gap and the end: a 2 px tick centred on its step, not a bare
    // "M" that draws nothing.
    expect(d).toMatch(/M86\.5,[\d.]+h2$/);
  });

  it("draws a server's first step, alone, as a tick", () => {
    const [first] = points;
    const d = sparklinePath(first === undefined ? [] : [first], reads, {
      from: base,
      to: base + 10_000,
      stepMs: 10_000,
      top: 10,
      width: 120,
      height: 28,
      columns: 60,
    });
    expect(d).toMatch(/^M59\.0,[\d.]+h2$/);
  });

  it("draws a busy server's ten minutes as one value per column, not a solid block", () => {
    // 600 one-second steps whose peak swings 2 ↔ 40 reads in flight: the recorded second's shape,
    // its peak changed, laid end to end.
    const template = points[0] as (typeof points)[number];
    const busy = Array.from({ length: 600 }, (_, i) => ({
      ...template,
      t: base + i * 1_000,
      readsInFlight: { ...template.readsInFlight, max: i % 2 === 0 ? 40 : 2 },
    }));
    const options = { from: base, to: base + 600_000, stepMs: 1_000, top: 40, width: 120, height: 28 };
    const everyStep = sparklinePath(busy, reads, options);
    expect(everyStep.match(/[ML]/g)).toHaveLength(600);
    const columns = sparklinePath(busy, reads, { ...options, columns: 60, reduce: 'max' });
    const ys = [...columns.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => m[1]);
    expect(ys).toHaveLength(60);
    // Every 10 s column peaks at 40: the top of the scale, one flat line.
    expect(new Set(ys)).toEqual(new Set(['1.0']));
    // The mean of 40 and 2 is 21: 28 − 21 / 40 × 26 − 1 = 13.35 px from the top.
    const mean = sparklinePath(busy, reads, { ...options, columns: 60, reduce: 'mean' });
    expect(new Set([...mean.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => m[1]))).toEqual(new Set(['13.3']));
  });

  it('shows the newest step with a value', () => {
    expect(newestValue(points, reads)).toBe(points.at(-1)?.readsInFlight.max);
    expect(newestValue(points, () => null)).toBeNull();
  });

  it('filters by name and labels, every term must match', () => {
    const labels = { env: 'prod', cluster: 'eu-1' };
    expect(matchesLabelFilter(labels, 'db1', 'env=prod')).toBe(true);
    expect(matchesLabelFilter(labels, 'db1', 'prod eu')).toBe(true);
    expect(matchesLabelFilter(labels, 'db1', 'env=staging')).toBe(false);
    expect(matchesLabelFilter(labels, 'db1', '')).toBe(true);
    expect(matchesLabelFilter({}, 'db1', 'DB1')).toBe(true);
  });
});
