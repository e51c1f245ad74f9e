import { useEffect, useState, type RefObject } from 'react';
import { useNearScreen } from '../app/useNearScreen.ts';

export interface ChartBox {
  /** Content width in CSS pixels (0 until measured). */
  width: number;
  /** Whether the chart is on screen or near it: charts off screen skip most redraws (drawSchedule.ts). */
  visible: boolean;
}

/**
 * Width and visibility of a chart's wrapper. Charts redraw at every bucket (and the strip at
 * every sample); one scrolled out of view has no reason to, and on a long dashboard most are.
 */
export function useChartBox(element: RefObject<HTMLElement | null>): ChartBox {
  const [width, setWidth] = useState(0);
  const visible = useNearScreen(element);
  useEffect(() => {
    const node = element.current;
    if (node === null) return undefined;
    const resize = new ResizeObserver((entries) => setWidth(Math.floor(entries[0]?.contentRect.width ?? 0)));
    resize.observe(node);
    return () => resize.disconnect();
  }, [element]);
  return { width, visible };
}
