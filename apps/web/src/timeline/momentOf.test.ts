import { describe, expect, it } from 'vitest';
import type { HistoryFrames, LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { firstAtOrAfter, itemsIn, momentOf, newestAtOrBefore, scansAt, stepMoment } from './momentOf.ts';

// The embedded PostgreSQL 18 recording: samples taken during a cold scan, scan map on some of them.
const frames: LiveFrame[] = buildPayloads(recordedServers()[0] as Parameters<typeof buildPayloads>[0]).frames;

function rangeOf(list: LiveFrame[]): HistoryFrames {
  return {
    targetId: 'embedded',
    from: list[0]?.t ?? 0,
    to: (list.at(-1)?.t ?? 0) + 1,
    frames: list,
    ioDeltas: [],
    processes: [
      { t: list[0]?.t ?? 0, processes: [] },
      { t: list[Math.floor(list.length / 2)]?.t ?? 0, processes: [] },
    ],
    scansBefore: null,
    processesBefore: null,
  };
}

describe('reading a moment out of a recorded range', () => {
  it('finds items by time with binary search, as a linear scan would', () => {
    const items = [{ t: 1 }, { t: 3 }, { t: 3 }, { t: 7 }];
    expect(firstAtOrAfter(items, 3)).toBe(1);
    expect(firstAtOrAfter(items, 4)).toBe(3);
    expect(firstAtOrAfter(items, 99)).toBe(4);
    expect(itemsIn(items, 3, 7)).toEqual([{ t: 3 }, { t: 3 }]);
    expect(newestAtOrBefore(items, 6.5)).toEqual({ t: 3 });
    expect(newestAtOrBefore(items, 0)).toBeUndefined();
  });

  it('draws the scan map of the newest frame that carried one, at or before the moment', () => {
    const range = rangeOf(frames);
    const withScans = frames.filter((frame) => frame.scans !== undefined);
    expect(withScans.length).toBeGreaterThan(1);
    const second = withScans[1] as LiveFrame;
    expect(scansAt(range, second.t)).toBe(second.scans);
    const next = frames[frames.indexOf(second) + 1];
    if (next !== undefined && next.scans === undefined) expect(scansAt(range, next.t)).toBe(second.scans);
  });

  it('takes the samples of the window and the processes table of the moment', () => {
    const range = rangeOf(frames);
    const at = (frames[10] as LiveFrame).t;
    const moment = momentOf(range, (frames[2] as LiveFrame).t, at);
    expect(moment.frames).toEqual(frames.slice(2, 11));
    expect(moment.processes).toBe(range.processes[0]);
  });
});

describe('stepping one sample at a time', () => {
  // Recorded sample times carry fractions of a ms (…518.7, …657.7); the moment is whole ms.
  const moments = (start: number, direction: -1 | 1): number[] => {
    const seen: number[] = [];
    for (let at: number | null = start; at !== null; at = stepMoment(frames, at, direction)) seen.push(at);
    return seen;
  };
  const shownAt = (at: number): LiveFrame | undefined => newestAtOrBefore(frames, at);

  it('visits every sample once forwards, each step showing the next sample', () => {
    expect(frames.some((frame) => !Number.isInteger(frame.t))).toBe(true);
    const first = frames[0] as LiveFrame;
    const forwards = moments(Math.ceil(first.t), 1);
    expect(forwards.map(shownAt)).toEqual(frames);
    // Every moment is a whole ms that the URL can keep.
    expect(forwards.every(Number.isInteger)).toBe(true);
  });

  it('visits every sample once backwards, from the end of the range or from a moment a replay left', () => {
    const last = frames.at(-1) as LiveFrame;
    const backwards = moments(Math.ceil(last.t) + 500, -1).slice(1);
    expect(backwards.map(shownAt)).toEqual(frames.slice(0, -1).reverse());
    // A replay leaves the moment anywhere between two samples: one step goes to the neighbour.
    const between = Math.round(((frames[10] as LiveFrame).t + (frames[11] as LiveFrame).t) / 2);
    expect(shownAt(stepMoment(frames, between, 1) ?? 0)).toBe(frames[11]);
    expect(shownAt(stepMoment(frames, between, -1) ?? 0)).toBe(frames[9]);
  });

  it('says there is nothing past either end', () => {
    expect(stepMoment(frames, Math.ceil((frames.at(-1) as LiveFrame).t), 1)).toBeNull();
    expect(stepMoment(frames, Math.ceil((frames[0] as LiveFrame).t), -1)).toBeNull();
    expect(stepMoment([], 0, 1)).toBeNull();
  });
});
