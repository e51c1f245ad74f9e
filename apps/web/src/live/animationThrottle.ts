/** The per-sample views (strip, "now" figures) update at most this often over time: 25 Hz, whatever the sample rate. */
export const LIVE_MIN_INTERVAL_MS = 40;

/**
 * Draws that may come closer together than the minimum interval. With one (a plain minimum
 * interval), a draw held up by a long task pushes the next sample's draw an interval later, and
 * that one the next: at 20 Hz samples (50 ms) and a 40 ms interval the delay carries on from sample
 * to sample until jitter breaks the chain (animationThrottle.test.ts simulates it). A second draw
 * in hand lets the sample after a late draw go at the next animation tick; the rate stays at most
 * one draw per interval over time. Measured against one aioscope (30 s windows): the slowest tenth
 * of samples waited 25–34 ms between arrival and draw before, 14–16 ms after.
 */
export const LIVE_DRAW_BURST = 2;

/**
 * A rate limit as a budget of time (a token bucket): it fills with the time that passes, up to
 * `burst` intervals, and each draw spends one interval. Times are the caller's clock, in ms.
 */
export class DrawBudget {
  private credit: number;
  private at = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly burst = LIVE_DRAW_BURST,
  ) {
    this.credit = intervalMs * burst;
  }

  /** Milliseconds from `now` until a draw is allowed (0: now). */
  waitAt(now: number): number {
    this.fill(now);
    return Math.max(0, this.intervalMs - this.credit);
  }

  /** Notes a draw at `now`. */
  spend(now: number): void {
    this.fill(now);
    this.credit -= this.intervalMs;
  }

  private fill(now: number): void {
    this.credit = Math.min(this.intervalMs * this.burst, this.credit + (now - this.at));
    this.at = now;
  }
}

export interface AnimationThrottle {
  /** Runs the callback at the next animation tick, or once the draw budget allows. */
  schedule: () => void;
  cancel: () => void;
}

/**
 * Coalesces calls into one callback per animation tick, at most one per `minIntervalMs` over
 * time (DrawBudget): at 100 Hz sampling a view would otherwise redraw at the display's refresh rate.
 * Nothing runs while the tab is hidden; the caller redraws on its next schedule.
 */
export function animationThrottle(callback: () => void, minIntervalMs = LIVE_MIN_INTERVAL_MS): AnimationThrottle {
  const budget = new DrawBudget(minIntervalMs);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let tickRequest: number | null = null;
  const run = (): void => {
    tickRequest = null;
    if (document.hidden) return;
    budget.spend(performance.now());
    callback();
  };
  const requestFrame = (): void => {
    timer = null;
    tickRequest ??= requestAnimationFrame(run);
  };
  return {
    schedule: () => {
      if (timer !== null || tickRequest !== null) return;
      const wait = budget.waitAt(performance.now());
      if (wait <= 0) requestFrame();
      else timer = setTimeout(requestFrame, wait);
    },
    cancel: () => {
      if (timer !== null) clearTimeout(timer);
      if (tickRequest !== null) cancelAnimationFrame(tickRequest);
      timer = null;
      tickRequest = null;
    },
  };
}
