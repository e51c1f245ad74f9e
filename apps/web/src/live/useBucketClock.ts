import { startTransition, useEffect, useState } from 'react';
import { indexAtOrAfter } from '@aioscope/core';
import type { IoStatDelta, LiveFrame, ScanView } from '@aioscope/spec';
import { afterNextPaint } from './afterNextPaint.ts';
import { WINDOW_MS, type LiveConnection, type LiveStore, type StoreChange } from './liveStore.ts';
import type { ProcessRow } from './stableProcesses.ts';

/** Without new frames (server down, paused) the page still re-renders this often: ages and the axis move on. */
export const IDLE_RENDER_MS = 1_000;

/**
 * The live store as the page draws it at one render, read when the clock ticked: the store
 * mutates in place, so nothing reads it while React renders (a transition rendering in slices
 * would otherwise show two states of it in one page).
 */
export interface BucketView {
  /** Browser clock at the render, epoch ms (ages of received data). */
  browserNow: number;
  /**
   * Right edge of the chart window on the server's clock: the start of the bucket still filling.
   * Every bucket left of it is complete, so a drawn bar never changes afterwards.
   */
  domainEnd: number;
  /** The frames of the window [domainEnd - WINDOW_MS, domainEnd); none while frames are not followed. */
  frames: readonly LiveFrame[];
  /**
   * The store's newest frame at the render, past the window's end: the "now" figures, which change
   * in the same commit as the charts beside them (one rendering update of the page per bucket, not
   * one more for the figures alone).
   */
  newest: LiveFrame | undefined;
  deltas: readonly IoStatDelta[];
  scans: readonly ScanView[];
  processRows: readonly ProcessRow[];
  /** The server's "now" estimated at browserNow. */
  serverNow: number;
  stale: boolean;
  reachable: boolean;
  connection: LiveConnection;
}

/** `previous` itself when `next` holds the same items: a render that changed nothing keeps every memo. */
function keepIfSame<T>(previous: readonly T[] | undefined, next: readonly T[]): readonly T[] {
  if (previous === undefined || previous.length !== next.length) return next;
  return previous[0] === next[0] && previous[previous.length - 1] === next[next.length - 1] ? previous : next;
}

const NO_FRAMES: readonly LiveFrame[] = [];

/** What a render shows of `store` at `browserNow`; `previous` lends its arrays where nothing changed. */
export function bucketViewOf(
  store: LiveStore,
  bucketMs: number,
  followFrames: boolean,
  browserNow: number,
  previous?: BucketView,
): BucketView {
  const since = store.lastReceivedAt === null ? null : browserNow - store.lastReceivedAt;
  const serverNow = store.serverNow(browserNow);
  const domainEnd = bucketDomainEnd(store.latestFrame()?.t, serverNow, since, bucketMs);
  const all = store.frames;
  const frames = followFrames
    ? all.slice(indexAtOrAfter(all, domainEnd - WINDOW_MS), indexAtOrAfter(all, domainEnd))
    : NO_FRAMES;
  return {
    browserNow,
    domainEnd,
    frames: keepIfSame(previous?.frames, frames),
    newest: followFrames ? store.latestFrame() : undefined,
    deltas: keepIfSame(previous?.deltas, store.deltas.slice()),
    scans: store.scans,
    processRows: store.processRows,
    serverNow,
    stale: store.isStale(browserNow),
    reachable: store.serverReachable(),
    connection: {
      socketState: store.socketState,
      socketError: store.socketError,
      status: store.status,
      lastReceivedAt: store.lastReceivedAt,
    },
  };
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
 * (the previous one is then complete), right after the next animation tick has painted (so that
 * tick shows the new sample without waiting for every panel: afterNextPaint), as a transition
 * that yields to arriving samples while it renders. Other changes (status, processes, socket
 * state) render within one bucket; without frames, once a second. Nothing renders while the tab
 * is hidden. Panels and charts follow this clock, so their cost is bounded by the bucket rate
 * (2 Hz at 500 ms buckets) whatever the sample rate. With `followFrames` false (a past range on
 * screen) only the once-a-second render remains: the header's ages and the live edge's clock.
 */
export function useBucketClock(store: LiveStore, bucketMs: number, followFrames = true): BucketView {
  const [view, setView] = useState(() => bucketViewOf(store, bucketMs, followFrames, Date.now()));

  useEffect(() => {
    let shown: BucketView | undefined;
    let shownEnd = -Infinity;
    let lastRender = 0;
    let timer: number | null = null;
    let cancelRender: (() => void) | null = null;
    const render = (): void => {
      cancelRender = null;
      if (document.hidden) return;
      const next = bucketViewOf(store, bucketMs, followFrames, Date.now(), shown);
      shown = next;
      lastRender = next.browserNow;
      shownEnd = next.domainEnd;
      // A transition: React renders the panels in slices of a few milliseconds and lets the
      // browser handle frames and socket messages in between, instead of one task of 20–50 ms on
      // a slow machine that every sample arriving during it waited for.
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
      if (!followFrames) return;
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
  }, [store, bucketMs, followFrames]);
  return view;
}
