import { describe, expect, it } from 'vitest';
import { rollup } from '@aioscope/core';
import type { LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '../../../../packages/spec/src/recordedPayloads.ts';
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
