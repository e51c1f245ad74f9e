// The global performance clock (not node:perf_hooks' binding), so tests can fake it with the timers.
export interface TickerOptions {
  intervalMs: number;
  /** When the first tick runs, ms from now (a phase on the grid); 0 when absent. */
  firstTickInMs?: number;
  /** One tick. It is never started again while still running. */
  run: () => Promise<void>;
  /** Slots skipped: the previous tick ended more than half an interval after them. */
  onSkipped?: (count: number) => void;
  /** A tick that started late (less than half an interval) instead of being skipped. */
  onLate?: (lateMs: number) => void;
  onError?: (error: unknown) => void;
}

export interface Ticker {
  stop(): void;
  /**
   * Moves the grid to a new interval (the cost budget changes the rate at run time): a tick
   * waiting for its slot is rescheduled at the new distance from the previous one; a running tick
   * finishes and its successor follows the new interval.
   */
  setIntervalMs(intervalMs: number): void;
}

/**
 * Runs `run` on a fixed grid of `intervalMs` with a chained setTimeout: the delay subtracts the
 * tick's own duration. A tick still running when its successor's slot comes never overlaps it: if
 * it ends less than half an interval after that slot, the successor runs at once (late, on the
 * same grid); later than that, the slot is skipped and counted, never queued (no pile-up of
 * queries against a slow server). Skipping on any overrun lost a sample for every tick a few ms
 * over its slot at 100 Hz (npm run bench, sampler: 37-125 skipped per minute).
 */
export function startTicker(options: TickerOptions): Ticker {
  let intervalMs = options.intervalMs;
  let stopped = false;
  let waiting = true;
  let timer: NodeJS.Timeout | undefined;
  const firstTickInMs = options.firstTickInMs ?? 0;
  let slot = performance.now() + firstTickInMs;

  const loop = async (): Promise<void> => {
    if (stopped) return;
    waiting = false;
    try {
      await options.run();
    } catch (error) {
      options.onError?.(error);
    }
    if (stopped) return;
    slot += intervalMs;
    const now = performance.now();
    const late = now - slot;
    if (late > intervalMs / 2) {
      const missed = Math.ceil((late - intervalMs / 2) / intervalMs);
      slot += missed * intervalMs;
      options.onSkipped?.(missed);
    }
    if (now > slot) options.onLate?.(now - slot);
    waiting = true;
    timer = setTimeout(() => void loop(), Math.max(0, slot - now));
  };

  timer = setTimeout(() => void loop(), firstTickInMs);
  return {
    stop(): void {
      stopped = true;
      clearTimeout(timer);
    },
    setIntervalMs(next: number): void {
      if (next === intervalMs || stopped) return;
      if (waiting) {
        // `slot` is the next slot: the previous one plus the old interval. A new slot already past
        // starts a fresh grid now rather than a late tick followed by a catch-up one.
        slot = Math.max(slot + next - intervalMs, performance.now());
        clearTimeout(timer);
        timer = setTimeout(() => void loop(), Math.max(0, slot - performance.now()));
      }
      intervalMs = next;
    },
  };
}
