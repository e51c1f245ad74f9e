import {
  addFrame,
  appendBounded,
  bytesPerReadSeries,
  emptyAccumulator,
  toRollupPoint,
  BYTES_PER_READ_WINDOW_SECONDS,
} from '@aioscope/core';
import type { IoStatDelta, LiveFrame, RollupPoint } from '@aioscope/spec';

/** pg_stat_io deltas kept for the exact bytes per read: its trailing window at 1 Hz, with room. */
const RECENT_DELTAS = BYTES_PER_READ_WINDOW_SECONDS * 2;

type ReadTotals = Record<string, { reads: number; readBytes: number; readTimeMs: number }>;
type DeltaRows = NonNullable<IoStatDelta['byGroup']>;

/** Sums since aioscope started watching: only ever go up, so Prometheus can rate() them. */
export interface TargetTotals {
  samples: number;
  newReads: number;
  newReadBytes: number;
  workerSamples: number;
  workerBusy: number;
  /** pg_stat_io reads and read time by row: keys "backend_type/object/context" (core's statIoGroupKey). */
  statByGroup: ReadTotals;
  /** pg_stat_io intervals skipped because the counters were reset inside them. */
  statResets: number;
}

/** What one scrape reports about the time since the previous scrape by the same scraper. */
export interface ScrapeInterval {
  /** The interval's roll-up (max and mean of the 20 Hz figures); frames = 0 when none arrived. */
  point: RollupPoint;
  /** Length on aioscope's clock, seconds. */
  seconds: number;
}

interface OpenInterval {
  acc: ReturnType<typeof emptyAccumulator>;
  startedAt: number;
}

function addTo(totals: ReadTotals, groups: DeltaRows): void {
  for (const [name, group] of Object.entries(groups)) {
    const sum = (totals[name] ??= { reads: 0, readBytes: 0, readTimeMs: 0 });
    sum.reads += group.reads;
    sum.readBytes += group.readBytes;
    sum.readTimeMs += group.readTimeMs ?? 0;
  }
}

/**
 * Everything /metrics reports about one target, folded from its monitor's events as they arrive.
 * The 20 Hz figures go into one roll-up per scraper (core/rollups.ts, the same max/mean the
 * history uses), reset when that scraper scrapes, so a 15 s scrape still sees the peak of a burst
 * that came and went between scrapes.
 */
export class TargetTally {
  latest: LiveFrame | null = null;
  /** aioscope's clock when the newest frame arrived (the frame's own t is the server's clock). */
  latestAt: number | null = null;
  /** aioscope's clock when the newest pg_stat_io delta arrived. */
  latestDeltaAt: number | null = null;
  readonly totals: TargetTotals = {
    samples: 0,
    newReads: 0,
    newReadBytes: 0,
    workerSamples: 0,
    workerBusy: 0,
    statByGroup: {},
    statResets: 0,
  };
  /**
   * Every "backend_type:wait_event" a frame has shown. Once seen, a wait is reported on every
   * scrape (0 when no process is in it), so its series continues rather than appearing for one
   * scrape and going stale: a dashboard reading it at a coarser step than the scrape would miss
   * such a blip. Bounded by the AIO wait events times the backend types.
   */
  readonly seenWaits = new Set<string>();
  private readonly recentDeltas: IoStatDelta[] = [];
  private readonly intervals = new Map<string, OpenInterval>();

  constructor(readonly watchedSince: number) {
    this.intervals.set('', { acc: emptyAccumulator(watchedSince), startedAt: watchedSince });
  }

  addFrame(frame: LiveFrame, now: number): void {
    this.latest = frame;
    this.latestAt = now;
    this.totals.samples++;
    if (frame.newReads !== null) {
      this.totals.newReads += frame.newReads.count;
      this.totals.newReadBytes += frame.newReads.bytes;
    }
    for (const key in frame.waits) this.seenWaits.add(key);
    for (const worker of frame.ioWorkers) {
      this.totals.workerSamples++;
      if (worker.busy) this.totals.workerBusy++;
    }
    for (const open of this.intervals.values()) addFrame(open.acc, frame);
  }

  /** A reset interval adds nothing (its numbers are not a delta) and is counted apart. */
  addIoDelta(delta: IoStatDelta, now: number): void {
    appendBounded(this.recentDeltas, delta, RECENT_DELTAS);
    this.latestDeltaAt = now;
    if (delta.reset) {
      this.totals.statResets++;
      return;
    }
    addTo(this.totals.statByGroup, delta.byGroup ?? {});
  }

  /** Exact bytes per read from pg_stat_io, weighted over its trailing window (core/ioStats.ts). */
  exactBytesPerRead(): number | null {
    return bytesPerReadSeries(this.recentDeltas).at(-1)?.weighted ?? null;
  }

  /**
   * Closes the scraper's interval and opens the next one. A scraper never seen before starts now:
   * its first scrape has an empty interval.
   */
  takeInterval(scraper: string, now: number): ScrapeInterval {
    const closed = this.intervals.get(scraper) ?? { acc: emptyAccumulator(now), startedAt: now };
    this.intervals.set(scraper, { acc: emptyAccumulator(now), startedAt: now });
    return { point: toRollupPoint(closed.acc), seconds: (now - closed.startedAt) / 1000 };
  }
}
