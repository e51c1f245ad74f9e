import { describe, expect, it } from 'vitest';
import { bytesPerReadSeries, parseStatIoGroupKey, summarizeLiveWindow } from '@aioscope/core';
import type { IoStatDelta } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { TargetTally } from './targetTally.ts';

const servers = recordedServers().map((server) => ({ name: server.name, payloads: buildPayloads(server) }));

describe('TargetTally over recorded frames', () => {
  it.each(servers.filter(({ payloads }) => payloads.frames.length > 1))(
    '$name: the interval max is at least every frame count and the mean is the window mean',
    ({ payloads }) => {
      const tally = new TargetTally(0);
      payloads.frames.forEach((frame, index) => tally.addFrame(frame, index * 50));
      const { point, seconds } = tally.takeInterval('', 15_000);
      const counts = payloads.frames.map((frame) => frame.inflight?.total.count ?? 0);
      for (const count of counts) expect(point.readsInFlight.max).toBeGreaterThanOrEqual(count);
      expect(point.readsInFlight.max).toBe(Math.max(...counts));
      expect(point.readsInFlight.mean).toBeCloseTo(summarizeLiveWindow(payloads.frames).meanInflightReads ?? 0, 9);
      expect(point.frames).toBe(payloads.frames.length);
      expect(seconds).toBe(15);
    },
  );

  it('resets the interval on each scrape and keeps a named scraper apart from the default one', () => {
    const frames = servers.find(({ name }) => name === 'pg19beta3-worker')?.payloads.frames ?? [];
    const tally = new TargetTally(0);
    tally.takeInterval('second', 0);
    const peak = frames.findIndex((frame) => frame.inflight?.total.count === 15);
    frames.slice(0, peak + 1).forEach((frame) => tally.addFrame(frame, 100));
    expect(tally.takeInterval('', 1_000).point.readsInFlight.max).toBe(15);
    frames.slice(0, 3).forEach((frame) => tally.addFrame(frame, 1_100));
    // The default scraper's next interval no longer holds the peak; the second scraper's still does.
    expect(tally.takeInterval('', 2_000).point.readsInFlight.max).toBeLessThan(15);
    expect(tally.takeInterval('second', 2_000).point.readsInFlight.max).toBe(15);
    expect(tally.takeInterval('', 3_000).point.frames).toBe(0);
    expect(tally.totals.samples).toBe(peak + 1 + 3);
  });

  it('counts pg_stat_io reads from deltas only: a reset interval adds nothing and is counted apart', () => {
    const deltas = servers.flatMap(({ payloads }) => payloads.ioDeltas);
    expect(deltas.some((delta) => delta.reset)).toBe(true);
    const tally = new TargetTally(0);
    let previousReads = 0;
    for (const delta of deltas) {
      tally.addIoDelta(delta, 0);
      const reads = Object.values(tally.totals.statByGroup).reduce((sum, group) => sum + group.reads, 0);
      expect(reads, 'a counter only goes up').toBeGreaterThanOrEqual(previousReads);
      previousReads = reads;
    }
    const counted = deltas.filter((delta) => !delta.reset);
    expect(previousReads).toBe(counted.reduce((sum, delta) => sum + delta.reads, 0));
    const groupBytes = Object.values(tally.totals.statByGroup).reduce((sum, group) => sum + group.readBytes, 0);
    expect(groupBytes).toBe(counted.reduce((sum, delta) => sum + delta.readBytes, 0));
    // Every row the recorded servers read from is kept apart: relation and temp relation, each context.
    const groups = Object.keys(tally.totals.statByGroup).map((key) => parseStatIoGroupKey(key));
    expect(groups).not.toContain(null);
    expect(groups.map((group) => group?.context)).toContain('bulkread');
    expect(tally.totals.statResets).toBe(deltas.length - counted.length);
  });

  it('survives a pg_stat_reset_shared: counters keep climbing from where they were', () => {
    const delta = (t: number, reads: number, reset = false): IoStatDelta => ({
      t,
      intervalSeconds: 1,
      reset,
      reads: reset ? 0 : reads,
      readBytes: reset ? 0 : reads * 131_072,
      readTimeMs: 0,
      bytesPerRead: reset ? null : 131_072,
      byBackendType: reset ? {} : { 'client backend': { reads, readBytes: reads * 131_072 } },
      byContext: reset ? {} : { bulkread: { reads, readBytes: reads * 131_072 } },
      byGroup: reset
        ? {}
        : { 'client backend/relation/bulkread': { reads, readBytes: reads * 131_072, readTimeMs: reads / 2 } },
    });
    const tally = new TargetTally(0);
    for (const d of [delta(1_000, 100), delta(2_000, 0, true), delta(3_000, 40)]) tally.addIoDelta(d, 0);
    expect(tally.totals.statByGroup['client backend/relation/bulkread']).toEqual({
      reads: 140,
      readBytes: 140 * 131_072,
      readTimeMs: 70,
    });
    expect(tally.totals.statResets).toBe(1);
    // The exact bytes per read does not reach across the reset (core/ioStats.ts).
    expect(tally.exactBytesPerRead()).toBe(bytesPerReadSeries([delta(3_000, 40)]).at(-1)?.weighted);
  });
});
