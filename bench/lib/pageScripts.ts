/**
 * Scripts injected into the dashboard page. They are strings, not functions, because the root
 * tsconfig has no DOM library; each is plain browser JavaScript.
 */

/**
 * Paint latency hook, installed before the page's own scripts (addInitScript):
 *
 * 1. WebSocket is wrapped so that every `frame` event (socket.io packet `42["frame",…]`) is noted
 *    with its arrival time (Date.now()) and its frame.t, before socket.io's own handler sees it
 *    (our listener is added in the constructor; engine.io sets `onmessage` after construction).
 * 2. A MutationObserver on the document sees each React commit that changes the DOM, and a wrapper
 *    of CanvasRenderingContext2D.clearRect sees each canvas chart redraw. The first such change
 *    after a paint starts a probe: it waits for the next animation frame and, from a MessageChannel
 *    task posted inside that rAF callback, takes Date.now(): that task runs after the frame's
 *    style/layout/paint, so it is the time the change was painted (an upper bound by < 1 ms).
 *    Each change notes how many frames had arrived (they were in the LiveStore when it was made);
 *    the paint includes what the last change before it noted. A change made while a probe waits
 *    (a strip drawn in the same animation frame as the probe's callback) is painted by that
 *    frame: an earlier version counted only the change that started the probe and gave such
 *    frames to the next paint, a sample interval later than they were painted.
 *
 * A frame's paint latency = the first paint that included it − frame.t (server clock; the browser
 * and PostgreSQL share this machine's clock). Freshness = paint − t of the newest frame in it.
 */
export const PAINT_HOOK_SCRIPT = `(() => {
  const bench = { active: false, frames: [], paints: [] };
  window.__aioscopeBench = bench;
  const Native = window.WebSocket;
  class HookedWebSocket extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (!bench.active || typeof event.data !== 'string' || !event.data.startsWith('42["frame"')) return;
        const arrivedAt = Date.now();
        try {
          const payload = JSON.parse(event.data.slice(2))[1];
          bench.frames.push([arrivedAt, payload.frame.t]);
        } catch {}
      });
    }
  }
  window.WebSocket = HookedWebSocket;
  let pending = false;
  let committedAt = 0;
  let included = 0;
  const note = () => {
    if (!bench.active) return;
    included = bench.frames.length;
    if (pending) return;
    pending = true;
    committedAt = Date.now();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        bench.paints.push([committedAt, Date.now(), included]);
        pending = false;
      };
      channel.port2.postMessage(0);
    });
  };
  const observer = new MutationObserver(note);
  // Charts drawn on a canvas change no DOM: a redraw starts with clearRect, which counts as a commit too.
  const clearRect = CanvasRenderingContext2D.prototype.clearRect;
  CanvasRenderingContext2D.prototype.clearRect = function (...args) {
    note();
    return clearRect.apply(this, args);
  };
  const start = () => observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();`;

export const PAINT_HOOK_START = `(() => { const b = window.__aioscopeBench; b.frames.length = 0; b.paints.length = 0; b.active = true; return true; })()`;

/** Stops recording and returns { frames: [arrivedAt, t][], paints: [committedAt, paintedAt, framesIncluded][] }. */
export const PAINT_HOOK_COLLECT = `(() => { const b = window.__aioscopeBench; b.active = false; return { frames: b.frames.slice(), paints: b.paints.slice() }; })()`;

/** Long tasks (> 50 ms on the main thread), recorded from page start. */
export const LONG_TASK_SCRIPT = `(() => {
  window.__aioscopeLongTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__aioscopeLongTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
})();`;

/** [startTime, duration][] of long tasks since `since` (performance.now() ms). */
export const longTasksSince = (since: number): string =>
  `(window.__aioscopeLongTasks || []).filter((entry) => entry[0] >= ${since})`;

export const PAGE_NOW = `performance.now()`;
