import { startTransition, useEffect, useState } from 'react';
import { afterNextPaint } from './afterNextPaint.ts';
import type { LiveStore, StoreChange } from './liveStore.ts';

/** Without new frames (server down, paused) the page still re-renders this often: ages and the axis move on. */
export const IDLE_RENDER_MS = 1_000;

export interface BucketView {
  /** Browser clock at the render, epoch ms (ages of received data). */
  browserNow: number;
  /**
   * Right edge of the chart window on the server's clock: the start of the bucket still filling.
   * Every bucket left of it is complete, so a drawn bar never changes afterwards.
   */
  domainEnd: number;
}

/**
 * The window's right edge for a moment: the bucket boundary at or before the newest frame, or,
 * once no frame came for IDLE_RENDER_MS, at or before the server's estimated "now" (the window
 * keeps moving and shows the gap instead of freezing).
 */
export function bucketDomainEnd(
  newestFrameT: number | undefined,
  serverNow: number,
  sinceLastFrameMs: number | null,
  bucketMs: number,
): number {
  const floorToBucket = (t: number): number => Math.floor(t / bucketMs) * bucketMs;
  const byFrames = newestFrameT === undefined ? -Infinity : floorToBucket(newestFrameT);
  const idle = sinceLastFrameMs === null || sinceLastFrameMs >= IDLE_RENDER_MS;
  return idle ? Math.max(byFrames, floorToBucket(serverNow)) : byFrames;
}

/**
 * Re-renders the caller once per chart bucket: as soon as the first frame of a new bucket arrives
 * (the previous one is then complete), right after the next animation frame has painted (so that
 * frame shows the new sample without waiting for every panel: afterNextPaint), as a transition
 * that yields to arriving samples while it renders. Other changes (status, processes, socket
 * state) render within one bucket; without frames, once a second. Nothing renders while the tab
 * is hidden. Panels and charts follow this clock, so their cost is bounded by the bucket rate
 * (5 Hz at 200 ms buckets) whatever the sample rate.
 */
export function useBucketClock(store: LiveStore, bucketMs: number): BucketView {
  const compute = (): BucketView => {
    const browserNow = Date.now();
    const since = store.lastReceivedAt === null ? null : browserNow - store.lastReceivedAt;
    return {
      browserNow,
      domainEnd: bucketDomainEnd(store.latestFrame()?.t, store.serverNow(browserNow), since, bucketMs),
    };
  };
  const [view, setView] = useState(compute);

  useEffect(() => {
    let shownEnd = -Infinity;
    let lastRender = 0;
    let timer: number | null = null;
    let cancelRender: (() => void) | null = null;
    const render = (): void => {
      cancelRender = null;
      if (document.hidden) return;
      const next = compute();
      lastRender = next.browserNow;
      shownEnd = next.domainEnd;
      // A transition: React renders the panels in slices of a few milliseconds and lets the
      // browser handle frames and socket messages in between, instead of one task of 20–50 ms on
      // a slow machine that every sample arriving during it waited for. Measured (bench,
      // latency and browser, alternated): paint p95 114 / 110 → 86 / 87 ms, tasks over 50 ms
      // 68 / 54 → 14 / 8 a minute, main thread no busier.
      startTransition(() => setView(next));
    };
    const renderAfterNextPaint = (): void => {
      if (timer !== null) {
        window.clearTimeout(timer);
        timer = null;
      }
      cancelRender ??= afterNextPaint(render);
    };
    const renderWithinBucket = (): void => {
      if (cancelRender !== null || timer !== null) return;
      const wait = bucketMs - (Date.now() - lastRender);
      if (wait <= 0) renderAfterNextPaint();
      else timer = window.setTimeout(renderAfterNextPaint, wait);
    };
    const onChange = (change: StoreChange): void => {
      if (change === 'other') return renderWithinBucket();
      const newest = store.latestFrame();
      if (newest !== undefined && Math.floor(newest.t / bucketMs) * bucketMs > shownEnd) renderAfterNextPaint();
    };
    const unsubscribe = store.subscribe(onChange);
    const idle = window.setInterval(() => {
      if (Date.now() - lastRender >= IDLE_RENDER_MS) renderAfterNextPaint();
    }, IDLE_RENDER_MS);
    const onVisible = (): void => {
      if (!document.hidden) renderAfterNextPaint();
    };
    document.addEventListener('visibilitychange', onVisible);
    renderAfterNextPaint();
    return () => {
      unsubscribe();
      window.clearInterval(idle);
      document.removeEventListener('visibilitychange', onVisible);
      if (timer !== null) window.clearTimeout(timer);
      cancelRender?.();
    };
    // compute reads the store and bucketMs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, bucketMs]);
  return view;
}
