/**
 * Scripts the history-browser measurement runs in the dashboard page. Strings, not functions: the
 * root tsconfig has no DOM library; each is plain browser JavaScript.
 */

/** What the page must show for a watch to end. */
export type WatchCheck = 'rollupInk' | 'recordingShown';
/** Where a watch's time starts: navigation start, the next click, the next file chosen, or now. */
export type WatchOrigin = 'navigation' | 'click' | 'input' | 'now';

/** Times in the page's performance.now() timebase (0 = navigation start). */
export interface WatchResult {
  origin: number | null;
  /** The animation frame in which the check first held (the drawing was done). */
  readyAt: number | null;
  /** After that frame's style, layout and paint (a MessageChannel task posted from the next rAF). */
  paintedAt: number | null;
  timedOut: boolean;
}

export interface ResourceTiming {
  name: string;
  startTime: number;
  responseStart: number;
  responseEnd: number;
}

/**
 * Defines window.__benchWatch(options): from an origin, checks at every animation frame whether
 * the page shows what is awaited, then notes when that frame was painted; the result is the
 * promise window.__benchWatched.
 *
 * - rollupInk: the long range's "reads in flight, max and mean per …" chart exists and its canvas
 *   holds at least 20 pixels in a series colour (the lines are drawn, not only the axes).
 * - recordingShown: the page shows a range (the time bar's range line) and the reads-in-flight
 *   panel's peak figure has a number: the recording's frames arrived and the panels drew them.
 */
export const WATCH_SCRIPT = `(() => {
  if (window.__benchWatch) return;
  const ROLLUP_CHART = '[role="img"][aria-label^="reads in flight, max and mean per"]';
  const resolved = (element, color) => {
    const probe = document.createElement('span');
    probe.style.color = color;
    element.append(probe);
    const rgb = (getComputedStyle(probe).color.match(/\\d+/g) ?? []).slice(0, 3).map(Number);
    probe.remove();
    return rgb;
  };
  let colors = null;
  const checks = {
    rollupInk: () => {
      const plot = document.querySelector(ROLLUP_CHART);
      if (!plot) return false;
      colors ??= ['var(--series-1)', 'var(--series-4)'].map((color) => resolved(plot, color));
      for (const canvas of plot.querySelectorAll('canvas')) {
        if (canvas.width === 0 || canvas.height === 0) continue;
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let ink = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] < 160) continue;
          if (colors.some((rgb) => [0, 1, 2].every((c) => Math.abs(data[i + c] - rgb[c]) <= 12))) ink++;
          if (ink >= 20) return true;
        }
      }
      return false;
    },
    recordingShown: () => {
      if (!document.querySelector('[data-testid="time-range"]')) return false;
      const peak = document.querySelector('[data-testid="inflight-peak"]');
      return peak !== null && /\\d/.test(peak.textContent ?? '');
    },
  };
  window.__benchWatch = ({ check, origin, timeoutMs }) => {
    const state = { origin: null, readyAt: null, paintedAt: null, timedOut: false };
    if (origin === 'navigation') state.origin = 0;
    else if (origin === 'now') state.origin = performance.now();
    else {
      const note = (event) => { if (state.origin === null) state.origin = event.timeStamp; };
      document.addEventListener(origin, note, { capture: true, once: true });
    }
    const started = performance.now();
    window.__benchWatched = new Promise((resolve) => {
      const poll = () => {
        if (state.origin !== null && checks[check]()) {
          state.readyAt = performance.now();
          requestAnimationFrame(() => {
            const channel = new MessageChannel();
            channel.port1.onmessage = () => {
              state.paintedAt = performance.now();
              resolve(state);
            };
            channel.port2.postMessage(null);
          });
          return;
        }
        if (performance.now() - started > timeoutMs) {
          state.timedOut = true;
          resolve(state);
          return;
        }
        requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
    });
  };
})()`;

/** Arms a watch (WATCH_SCRIPT must have run in the page). */
export function armWatch(check: WatchCheck, origin: WatchOrigin, timeoutMs: number): string {
  return `window.__benchWatch(${JSON.stringify({ check, origin, timeoutMs })})`;
}

/**
 * Arms a roll-up watch and moves the page to `url` (same origin) as the Back button would: the
 * page reads its view from the URL on popstate, and renders it without loading again.
 */
export function switchInPage(url: string, timeoutMs: number): string {
  return `${armWatch('rollupInk', 'now', timeoutMs)};
    history.pushState(null, '', ${JSON.stringify(url)});
    dispatchEvent(new PopStateEvent('popstate'));`;
}

/** The armed watch's result (a promise in the page). */
export const WATCHED = 'window.__benchWatched';

/** Whether the long range's reads chart is on the page (it must not be when a watch is armed). */
export const HAS_ROLLUP_CHART = `document.querySelector('[role="img"][aria-label^="reads in flight, max and mean per"]') !== null`;

/** The page's resource timings whose URL contains `part`. */
export function resourceTimings(part: string): string {
  return `performance.getEntriesByType('resource').filter((entry) => entry.name.includes(${JSON.stringify(part)}))
    .map(({ name, startTime, responseStart, responseEnd }) => ({ name, startTime, responseStart, responseEnd }))`;
}
