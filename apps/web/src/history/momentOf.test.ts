import { describe, expect, it } from 'vitest';
import type { HistoryFrames, LiveFrame } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '../../../../packages/spec/src/recordedPayloads.ts';
import { firstAtOrAfter, itemsIn, momentOf, newestAtOrBefore, scansAt } from './momentOf.ts';

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
