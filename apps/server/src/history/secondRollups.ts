import { addFrame, addIoDelta, emptyAccumulator, stepStart, type RollupAccumulator } from '@aioscope/core';
import type { IoStatDelta, LiveFrame } from '@aioscope/spec';

/**
 * How long after a second ends its roll-up stays open: frames and pg_stat_io deltas come from two
 * sessions, so a delta for a second may arrive after frames of the next one. Something later still
 * opens a new accumulator for that second; the store adds rows of one second up.
 */
export const ROLLUP_GRACE_MS = 1_000;

/** The 1 s roll-ups being built from a target's samples (core's accumulators, keyed by second). */
export class SecondRollups {
  private readonly open = new Map<number, RollupAccumulator>();
  private newestT = -Infinity;

  addFrame(frame: LiveFrame): void {
    addFrame(this.at(frame.t), frame);
  }

  addIoDelta(delta: IoStatDelta): void {
    addIoDelta(this.at(delta.t), delta);
  }

  /** Seconds that ended at least ROLLUP_GRACE_MS before the newest sample seen. */
  takeComplete(): RollupAccumulator[] {
    return this.take((start) => start + 1_000 + ROLLUP_GRACE_MS <= this.newestT);
  }

  /** Everything, on shutdown. */
  takeAll(): RollupAccumulator[] {
    return this.take(() => true);
  }

  private at(t: number): RollupAccumulator {
    this.newestT = Math.max(this.newestT, t);
    const start = stepStart(t);
    let acc = this.open.get(start);
    if (acc === undefined) {
      acc = emptyAccumulator(start);
      this.open.set(start, acc);
    }
    return acc;
  }

  private take(done: (start: number) => boolean): RollupAccumulator[] {
    const taken: RollupAccumulator[] = [];
    for (const [start, acc] of this.open) {
      if (!done(start)) continue;
      this.open.delete(start);
      taken.push(acc);
    }
    return taken;
  }
}
