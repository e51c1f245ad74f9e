import { appendBounded, mergeAccumulators, type RollupAccumulator } from '@aioscope/core';
import { OVERVIEW_MINUTES, type IoStatDelta, type LiveFrame } from '@aioscope/spec';
import { SecondRollups } from '../history/secondRollups.ts';

/** Achieved rate and sampling cost are measured over this much recent wall time. */
export const SAMPLING_WINDOW_MS = 10_000;
/** Bulk reads for "reads not combining" are summed over this much recent time. */
export const BULK_WINDOW_MS = 60_000;
const MAX_POINTS = OVERVIEW_MINUTES * 60;
/** 10 s at 100 Hz. */
const MAX_SAMPLES = 1_000;
const BULK_CONTEXT = 'bulkread';

/**
 * What the overview keeps of one target, in memory and bounded, fed from its monitor's events
 * (not from the recorder, which may be off): the last OVERVIEW_MINUTES of 1 s roll-ups, when
 * frames arrived and what their round trips cost, and pg_stat_io bulk reads.
 */
export class TargetOverview {
  private readonly open = new SecondRollups();
  private readonly seconds: RollupAccumulator[] = [];
  private readonly samples: { at: number; ms: number }[] = [];
  private readonly bulk: { at: number; reads: number; bytes: number }[] = [];
  readonly startedAt: number;
  lastFrameAt: number | null = null;

  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }

  addFrame(frame: LiveFrame): void {
    const at = this.now();
    this.lastFrameAt = at;
    appendBounded(this.samples, { at, ms: frame.sampleMs }, MAX_SAMPLES);
    this.open.addFrame(frame);
    this.keep(this.open.takeComplete());
  }

  addIoDelta(delta: IoStatDelta): void {
    this.open.addIoDelta(delta);
    const bulk = delta.byContext[BULK_CONTEXT];
    if (!delta.reset && bulk !== undefined && bulk.reads > 0)
      appendBounded(this.bulk, { at: this.now(), reads: bulk.reads, bytes: bulk.readBytes }, BULK_WINDOW_MS / 1000);
  }

  /** Completed seconds, oldest first, within the last OVERVIEW_MINUTES. */
  points(): readonly RollupAccumulator[] {
    return this.seconds;
  }

  /** Frames per second and round-trip time per wall time over the last SAMPLING_WINDOW_MS. */
  sampling(): { achievedHz: number; costShare: number | null } {
    const now = this.now();
    const windowMs = Math.min(SAMPLING_WINDOW_MS, now - this.startedAt);
    const recent = this.samples.filter((s) => s.at > now - SAMPLING_WINDOW_MS);
    if (windowMs <= 0) return { achievedHz: 0, costShare: null };
    const roundTrips = recent.reduce((sum, s) => sum + s.ms, 0);
    return {
      achievedHz: (recent.length * 1000) / windowMs,
      costShare: recent.length > 0 ? roundTrips / windowMs : null,
    };
  }

  bulkReads(): { reads: number; bytes: number; seconds: number } {
    const now = this.now();
    const recent = this.bulk.filter((b) => b.at > now - BULK_WINDOW_MS);
    return {
      reads: recent.reduce((sum, b) => sum + b.reads, 0),
      bytes: recent.reduce((sum, b) => sum + b.bytes, 0),
      seconds: Math.min(BULK_WINDOW_MS, now - this.startedAt) / 1000,
    };
  }

  private keep(completed: RollupAccumulator[]): void {
    if (completed.length === 0) return;
    for (const acc of completed) {
      // A pg_stat_io delta that came after its second was handed over reopens it: add it up.
      const same = this.seconds.findLast((kept) => kept.t === acc.t);
      if (same !== undefined) mergeAccumulators(same, acc);
      else appendBounded(this.seconds, acc, MAX_POINTS);
    }
    this.seconds.sort((a, b) => a.t - b.t);
    const newest = this.seconds[this.seconds.length - 1];
    if (newest !== undefined) {
      const oldest = newest.t - OVERVIEW_MINUTES * 60_000;
      while ((this.seconds[0]?.t ?? Infinity) <= oldest) this.seconds.shift();
    }
  }
}
