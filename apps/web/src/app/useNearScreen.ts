import { useEffect, useState, type RefObject } from 'react';

/** Near enough to the viewport to draw: scrolling brings it into view within a paint or two. */
export const NEAR_SCREEN_MARGIN = '200px';

/**
 * Whether the element is on screen or within NEAR_SCREEN_MARGIN of it (true until first observed):
 * what is scrolled out of view has no reason to redraw at the live rate, and on a long dashboard
 * most of the page is.
 */
export function useNearScreen(element: RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(true);
  useEffect(() => {
    const node = element.current;
    if (node === null) return undefined;
    const intersection = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (entry !== undefined) setNear(entry.isIntersecting);
      },
      { rootMargin: NEAR_SCREEN_MARGIN },
    );
    intersection.observe(node);
    return () => intersection.disconnect();
  }, [element]);
  return near;
}
