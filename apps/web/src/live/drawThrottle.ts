/** The per-sample views (strip, "now" figures) update at most this often over time: 25 Hz, whatever the sample rate. */
export const LIVE_MIN_INTERVAL_MS = 40;

/**
 * Draws that may come closer together than the minimum interval. With one (a plain minimum
 * interval), a draw held up by a long task pushes the next sample's draw an interval after it, and
 * that one the next: at 20 Hz samples (50 ms) and a 40 ms interval, a draw 48 ms late makes the
 * next four samples wait 38, 28, 18 and 8 ms (drawThrottle.test.ts). A second draw in hand lets the
 * samples after a late draw go at once; the rate stays at most one draw per interval over time.
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

export interface DrawThrottle {
  /** Runs the callback in a task of its own, at once or once the draw budget allows. */
  schedule: () => void;
  cancel: () => void;
}

/**
 * Coalesces calls into one callback, at most one per `minIntervalMs` over time (DrawBudget): at
 * 100 Hz sampling a view would otherwise redraw 100 times a second. The callback runs in a task,
 * not in an animation tick: a requestAnimationFrame callback makes Chromium run a rendering update
 * of the page (style, layout, paint, commit) even when nothing in the DOM changed, while the
 * charts' desynchronized canvases (charts/layeredPlot.ts) hand a drawing made in any task to the
 * compositor on their own. Traced on the live page at 20 Hz (software rendering, 8 s): 156
 * rendering updates drawing in animation ticks, 51 drawing in tasks, the strip still drawn at
 * every sample and the display redrawn as often.
 * Nothing runs while the tab is hidden; the caller redraws on its next schedule.
 */
export function drawThrottle(callback: () => void, minIntervalMs = LIVE_MIN_INTERVAL_MS): DrawThrottle {
  const budget = new DrawBudget(minIntervalMs);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = (): void => {
    timer = null;
    if (document.hidden) return;
    budget.spend(performance.now());
    callback();
  };
  return {
    schedule: () => {
      timer ??= setTimeout(run, budget.waitAt(performance.now()));
    },
    cancel: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
