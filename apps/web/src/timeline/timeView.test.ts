import { describe, expect, it } from 'vitest';
import {
  bucketMsForRange,
  formatLocation,
  parseLocation,
  RANGE_PRESETS,
  rangeEndingAt,
  readsRawFrames,
  replayWindow,
  wholeMsView,
  type TimeView,
  type ViewLocation,
} from './timeView.ts';
import { formatDuration } from '@aioscope/core';

describe('the view in the URL', () => {
  it('round-trips a replayed range with a moment and a selected process', () => {
    const location: ViewLocation = {
      targetId: 'embedded',
      pid: 4242,
      view: { mode: 'range', from: 1_764_000_000_000, to: 1_764_000_060_000, at: 1_764_000_030_000, speed: 0.25 },
    };
    const url = new URL(formatLocation(location), 'http://aioscope');
    expect(url.pathname).toBe('/t/embedded');
    expect(parseLocation(url.search, url.pathname)).toEqual(location);
  });

  it('leaves the moment out when it is the end of the range, and the whole query for plain live', () => {
    expect(formatLocation({ targetId: null, pid: null, view: { mode: 'live' } })).toBe('/');
    const search = formatLocation({
      targetId: 'a',
      pid: null,
      view: { mode: 'range', from: 10, to: 20, at: 20, speed: null },
    });
    expect(search).toBe('/t/a?from=10&to=20');
    // Links made before servers had their own paths still open their server.
    expect(parseLocation('?target=a&from=10&to=20').targetId).toBe('a');
  });

  it('falls back to live on a malformed or inverted range, and drops bad values', () => {
    expect(parseLocation('?from=20&to=10').view).toEqual({ mode: 'live' });
    expect(parseLocation('?from=abc&to=10').view).toEqual({ mode: 'live' });
    expect(parseLocation('?target=Bad%20Id&pid=-3')).toEqual({ targetId: null, pid: null, view: { mode: 'live' } });
    const view = parseLocation('?from=10&to=20&at=99&speed=3').view;
    expect(view).toEqual({ mode: 'range', from: 10, to: 20, at: 20, speed: null });
  });
});

describe('how a range is drawn', () => {
  it('reads raw samples up to 15 minutes and roll-ups beyond', () => {
    expect(readsRawFrames({ mode: 'range', from: 0, to: 15 * 60_000, at: 0, speed: null })).toBe(true);
    expect(readsRawFrames({ mode: 'range', from: 0, to: 15 * 60_000 + 1, at: 0, speed: null })).toBe(false);
    expect(readsRawFrames({ mode: 'live' })).toBe(false);
  });

  it('picks round buckets no finer than a sample', () => {
    expect(bucketMsForRange(60_000, 50)).toBe(250);
    expect(bucketMsForRange(15 * 60_000, 50)).toBe(5_000);
    expect(bucketMsForRange(1_000, 50)).toBe(50);
    expect(bucketMsForRange(1_000, 10)).toBe(10);
  });

  it('scales replay buckets with the speed and keeps 120 of them', () => {
    expect(replayWindow(1, 50)).toEqual({ windowMs: 60_000, bucketMs: 500 });
    expect(replayWindow(0.1, 50)).toEqual({ windowMs: 6_000, bucketMs: 50 });
    expect(replayWindow(0.1, 10)).toEqual({ windowMs: 6_000, bucketMs: 50 });
    expect(replayWindow(4, 50)).toEqual({ windowMs: 240_000, bucketMs: 2_000 });
  });

  it('says durations in the unit a person reads', () => {
    expect(formatDuration(90_000, 'span')).toBe('90 s');
    expect(formatDuration(15 * 60_000, 'span')).toBe('15 min');
    expect(formatDuration(6 * 3_600_000, 'span')).toBe('6 h');
  });
});

describe('ranges in whole milliseconds', () => {
  // The server's "now" as the page estimates it: a fraction of a ms, like the clock it follows.
  const serverNow = 1_764_000_123_456.789;

  it('makes every preset exactly its length, ending at now rounded up and shown at its end', () => {
    for (const preset of RANGE_PRESETS) {
      const view = wholeMsView(rangeEndingAt(serverNow, preset.ms));
      if (view.mode !== 'range') throw new Error('a preset is a range');
      expect(view.to - view.from).toBe(preset.ms);
      expect(view.to).toBe(Math.ceil(serverNow));
      expect(view.at).toBe(view.to);
    }
    expect(readsRawFrames(wholeMsView(rangeEndingAt(serverNow, 15 * 60_000)))).toBe(true);
  });

  it("keeps a whole length made of fractional ends (a marker's minute) and covers any other range", () => {
    const marker = 1_764_000_100_000.3;
    const minute = wholeMsView({ mode: 'range', from: marker - 30_000, to: marker + 30_000, at: marker, speed: null });
    expect(minute).toMatchObject({ from: Math.floor(marker - 30_000), at: Math.round(marker) });
    if (minute.mode !== 'range') throw new Error('a range');
    expect(minute.to - minute.from).toBe(60_000);

    const raw: TimeView = { mode: 'range', from: 1_000.3, to: 2_001.7, at: 1_000.3, speed: null };
    const covered = wholeMsView(raw);
    expect(covered).toEqual({ mode: 'range', from: 1_000, to: 2_002, at: 1_000, speed: null });
    expect(wholeMsView({ mode: 'live' })).toEqual({ mode: 'live' });
  });
});
