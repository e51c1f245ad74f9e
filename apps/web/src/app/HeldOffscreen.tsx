import { memo, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useNearScreen } from './useNearScreen.ts';

/**
 * How stale a panel scrolled out of view may get: it catches up at the first page render after
 * this long. A full-page capture never scrolls it into view, so it must still show data, and a
 * test reading it without scrolling sees at most this old a value.
 */
export const OFF_SCREEN_RENDER_MS = 2_000;

interface HeldProps {
  /** Off screen: render only when `since` is older than OFF_SCREEN_RENDER_MS. */
  hold: boolean;
  /** When the children last rendered (written after each commit). */
  since: { at: number };
  /** A change of this (a selection) renders at once even off screen: what it moves may scroll into view. */
  urgent: unknown;
  children: ReactNode;
}

const Held = memo(
  function Held({ since, children }: HeldProps): ReactNode {
    useLayoutEffect(() => {
      since.at = Date.now();
    });
    return children;
  },
  // Equal (skip the render) while held and fresh enough; on screen every render goes through.
  (previous, next) => next.hold && previous.urgent === next.urgent && Date.now() - next.since.at < OFF_SCREEN_RENDER_MS,
);

/**
 * A panel that renders with the page (every chart bucket, every replayed moment) while it is on
 * screen or near it, and off screen at most every OFF_SCREEN_RENDER_MS, in one of the page's own
 * renders (no extra paint). What no one can see is not reduced, reconciled and laid out twice a
 * second; scrolling it into view renders it at once with what the page has now. Its own state and
 * subscriptions (a form, a hover) render as usual.
 */
export function HeldOffscreen({ children, urgent }: { children: ReactNode; urgent?: unknown }): ReactNode {
  const wrapper = useRef<HTMLDivElement>(null);
  const near = useNearScreen(wrapper);
  const [since] = useState(() => ({ at: 0 }));
  return (
    <div ref={wrapper} className="held-offscreen">
      <Held hold={!near} since={since} urgent={urgent}>
        {children}
      </Held>
    </div>
  );
}
