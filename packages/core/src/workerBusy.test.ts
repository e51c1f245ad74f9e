import { describe, expect, it } from 'vitest';
import type { FastTickQueryRow } from './fastTick.ts';
import { framesOfRows, loadFixture } from './testFixtures.ts';
import { summarizeLiveWindow } from './window.ts';
import { busyShare, busyShareByWorker, emptyTally, tallyFrame } from './workerBusy.ts';

const fixture = loadFixture<{ idle: FastTickQueryRow; duringScan: FastTickQueryRow[] }>('pg18-fast-tick.json');

const framesOf = (rows: FastTickQueryRow[]): ReturnType<typeof framesOfRows> => framesOfRows(rows);

describe('io worker busy share (recorded on PostgreSQL 18)', () => {
  const frames = framesOf([fixture.idle, ...fixture.duringScan]);

  it('is the share of busy (worker, sample) pairs, the same whether tallied whole or per worker', () => {
    const whole = frames.reduce((tally, frame) => tallyFrame(tally, frame), emptyTally());
    const perWorker = busyShareByWorker(frames);
    expect(whole.samples).toBe(frames.reduce((n, frame) => n + frame.ioWorkers.length, 0));
    expect(whole.samples).toBeGreaterThan(0);
    expect(whole.busy).toBeGreaterThan(0); // the recording is of a scan: some worker was busy
    const busyFromWorkers = perWorker.reduce((n, w) => n + w.busyFraction * w.samples, 0);
    expect(busyFromWorkers).toBeCloseTo(whole.busy, 9);
    expect(summarizeLiveWindow(frames).workerBusyFraction).toBe(busyShare(whole));
  });

  it('tallies one pid alone, and has no share without io workers', () => {
    const [first] = busyShareByWorker(frames);
    expect(first).toBeDefined();
    const one = frames.reduce((tally, frame) => tallyFrame(tally, frame, first?.pid), emptyTally());
    expect(busyShare(one)).toBe(first?.busyFraction);
    expect(busyShare(emptyTally())).toBeNull();
    const idle = framesOf([fixture.idle]);
    expect(busyShare(tallyFrame(emptyTally(), idle[0] as (typeof idle)[number]))).toBe(0);
  });
});
