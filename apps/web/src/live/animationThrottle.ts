/** The per-sample views (strip, "now" figures) update at most this often: 25 Hz, whatever the sample rate. */
export const LIVE_MIN_INTERVAL_MS = 40;

export interface AnimationThrottle {
  /** Runs the callback at the next animation frame, or after the rest of the minimum interval. */
  schedule: () => void;
  cancel: () => void;
}

/**
 * Coalesces calls into one callback per animation frame, at most every `minIntervalMs`: at 100 Hz
 * sampling a view would otherwise redraw at the display's frame rate. Nothing runs while the tab
 * is hidden; the caller redraws on its next schedule.
 */
export function animationThrottle(callback: () => void, minIntervalMs = LIVE_MIN_INTERVAL_MS): AnimationThrottle {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let frameRequest: number | null = null;
  const run = (): void => {
    frameRequest = null;
    if (document.hidden) return;
    last = performance.now();
    callback();
  };
  const requestFrame = (): void => {
    timer = null;
    frameRequest ??= requestAnimationFrame(run);
  };
  return {
    schedule: () => {
      if (timer !== null || frameRequest !== null) return;
      const wait = minIntervalMs - (performance.now() - last);
      if (wait <= 0) requestFrame();
      else timer = setTimeout(requestFrame, wait);
    },
    cancel: () => {
      if (timer !== null) clearTimeout(timer);
      if (frameRequest !== null) cancelAnimationFrame(frameRequest);
      timer = null;
      frameRequest = null;
    },
  };
}
