import { memo, useEffect, useLayoutEffect, useReducer, useRef, useState, type ReactNode } from 'react';
import { useNearScreen } from './useNearScreen.ts';

/**
 * How stale a panel scrolled out of view may get: it catches up at the first page render after
 * this long. A full-page capture never scrolls it into view, so it must still show data, and a
 * test reading it without scrolling sees at most this old a value.
 */
export const OFF_SCREEN_RENDER_MS = 2_000;

interface HeldState {
  at: number;
  skipped: boolean;
}

interface HeldProps {
  /** Off screen: render only when `since` is older than OFF_SCREEN_RENDER_MS. */
  hold: boolean;
  /** When the children last rendered (written after each commit), and whether a render was skipped since. */
  since: HeldState;
  /** A change of this (a selection) renders at once even off screen: what it moves may scroll into view. */
  urgent: unknown;
  children: ReactNode;
}

const Held = memo(
  function Held({ since, children }: HeldProps): ReactNode {
    useLayoutEffect(() => {
      since.at = Date.now();
      since.skipped = false;
    });
    return children;
  },
  // Equal (skip the render) while held and fresh enough; on screen every render goes through.
  (previous, next) => {
    const skip = next.hold && previous.urgent === next.urgent && Date.now() - next.since.at < OFF_SCREEN_RENDER_MS;
    if (skip) next.since.skipped = true;
    return skip;
  },
);

/**
 * A panel that renders with the page (every chart bucket, every replayed moment) while it is on
 * screen or near it, and off screen at most every OFF_SCREEN_RENDER_MS, in one of the page's own
 * renders (no extra paint), or, when the page stops changing, that long after its last render.
 * What no one can see is not reduced, reconciled and laid out twice a second; scrolling it into view renders it at once with what the page has now. Its own state and
 * subscriptions (a form, a hover) render as usual.
 */
export function HeldOffscreen({
  children,
  urgent,
  live = true,
}: {
  children: ReactNode;
  urgent?: unknown;
  /**
   * Only the live view holds: in a recorded range every panel shows the moment of the same render
   * (a paused or stepped moment is read whole, even below the fold).
   */
  live?: boolean;
}): ReactNode {
  const wrapper = useRef<HTMLDivElement>(null);
  const near = useNearScreen(wrapper);
  const [since] = useState<HeldState>(() => ({ at: 0, skipped: false }));
  // A skipped render is caught up once the page has stopped changing (paused, a range loaded):
  // without it the panel would keep what it held until the next change.
  const [, catchUp] = useReducer((count: number) => count + 1, 0);
  useEffect(() => {
    if (!live || near || !since.skipped) return undefined;
    const timer = setTimeout(catchUp, OFF_SCREEN_RENDER_MS);
    return () => clearTimeout(timer);
  });
  return (
    <div ref={wrapper} className="held-offscreen">
      <Held hold={live && !near} since={since} urgent={urgent}>
        {children}
      </Held>
    </div>
  );
}
