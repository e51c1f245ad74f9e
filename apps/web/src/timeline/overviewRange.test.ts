import { describe, expect, it } from 'vitest';
import type { HistoryExtent } from '@aioscope/spec';
import { eventPlaces, keptRange, stripQueryRange } from './overviewRange.ts';
import { formatDuration } from '@aioscope/core';

const extent = (raw: { from: number; to: number }, rollups: { from: number; to: number } | null): HistoryExtent => ({
  targetId: 'embedded',
  recording: { state: 'recording', reason: null },
  raw,
  rollups,
  retention: { rawMs: 86_400_000, rollupMs: 30 * 86_400_000, maxBytes: 1e9 },
  bytesOnDisk: 0,
});

describe('the range the overview strip draws and names', () => {
  // Twenty seconds into a minute of the server's clock, like any start.
  const start = 1_764_000_020_000.4;

  it('names what is kept (12.8 s after 12.8 s recorded, 5 min for a 5-minute file), not the minute-rounded query', () => {
    const young = keptRange(extent({ from: start, to: start + 12_800 }, { from: start - 0.4, to: start + 12_000 }));
    expect(young).not.toBeNull();
    if (young === null) return;
    expect(formatDuration(young.to - young.from, 'span')).toBe('12.8 s');
    const query = stripQueryRange(young);
    expect(formatDuration(query.to - query.from, 'span')).toBe('60 s');

    const file = keptRange(extent({ from: start, to: start + 5 * 60_000 }, { from: start - 0.4, to: start + 299_000 }));
    expect(file === null ? null : formatDuration(file.to - file.from, 'span')).toBe('5 min');
    expect(file === null ? null : formatDuration(stripQueryRange(file).to - stripQueryRange(file).from, 'span')).toBe(
      '6 min',
    );
  });

  it('queries whole minutes that cover what is kept, and has nothing to draw when nothing is kept', () => {
    const kept = { from: start, to: start + 200_000 };
    const query = stripQueryRange(kept);
    expect(query.from % 60_000).toBe(0);
    expect(query.to % 60_000).toBe(0);
    expect(query.from).toBeLessThanOrEqual(kept.from);
    expect(query.to).toBeGreaterThan(kept.to);
    expect(keptRange({ ...extent({ from: 0, to: 1 }, null), raw: null })).toBeNull();
  });
});

describe("where the strip's event markers sit", () => {
  const kept = { from: 1_764_000_020_000, to: 1_764_000_080_000 };
  const at = (t: number) => ({ t, kind: 'labRunEnded' });

  it('places an event by its time across the kept range, ends included', () => {
    const places = eventPlaces([at(kept.from), at(kept.from + 15_000), at(kept.to)], kept);
    expect(places.map((place) => place.fraction)).toEqual([0, 0.25, 1]);
  });

  it('keeps an event newer than the newest kept sample at the right edge, never past it', () => {
    // The extent is read at other moments than the events: a run that ended 2 s after it.
    const places = eventPlaces([at(kept.to + 2_000)], kept);
    expect(places).toHaveLength(1);
    expect(places[0]?.fraction).toBe(1);
  });

  it('keeps an event older than the oldest kept sample at the left edge, in sight', () => {
    // The target connects a moment before its first sample is kept.
    const places = eventPlaces([at(kept.from - 40), at(kept.from + 30_000)], kept);
    expect(places.map((place) => place.fraction)).toEqual([0, 0.5]);
  });
});
