import { useEffect, useState } from 'react';
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
 * (the previous one is then complete), at the next animation frame. Other changes (status,
 * processes, socket state) render within one bucket; without frames, once a second. Nothing
 * renders while the tab is hidden. Panels and charts follow this clock, so their cost is bounded
 * by the bucket rate (5 Hz at 200 ms buckets) whatever the sample rate.
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
    let frameRequest: number | null = null;
    const render = (): void => {
      frameRequest = null;
      if (document.hidden) return;
      const next = compute();
      lastRender = next.browserNow;
      shownEnd = next.domainEnd;
      setView(next);
    };
    const renderAtNextFrame = (): void => {
      if (timer !== null) {
        window.clearTimeout(timer);
        timer = null;
      }
      frameRequest ??= requestAnimationFrame(render);
    };
    const renderWithinBucket = (): void => {
      if (frameRequest !== null || timer !== null) return;
      const wait = bucketMs - (Date.now() - lastRender);
      if (wait <= 0) renderAtNextFrame();
      else timer = window.setTimeout(renderAtNextFrame, wait);
    };
    const onChange = (change: StoreChange): void => {
      if (change === 'other') return renderWithinBucket();
      const newest = store.latestFrame();
      if (newest !== undefined && Math.floor(newest.t / bucketMs) * bucketMs > shownEnd) renderAtNextFrame();
    };
    const unsubscribe = store.subscribe(onChange);
    const idle = window.setInterval(() => {
      if (Date.now() - lastRender >= IDLE_RENDER_MS) renderAtNextFrame();
    }, IDLE_RENDER_MS);
    const onVisible = (): void => {
      if (!document.hidden) renderAtNextFrame();
    };
    document.addEventListener('visibilitychange', onVisible);
    renderAtNextFrame();
    return () => {
      unsubscribe();
      window.clearInterval(idle);
      document.removeEventListener('visibilitychange', onVisible);
      if (timer !== null) window.clearTimeout(timer);
      if (frameRequest !== null) cancelAnimationFrame(frameRequest);
    };
    // compute reads the store and bucketMs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, bucketMs]);
  return view;
}
