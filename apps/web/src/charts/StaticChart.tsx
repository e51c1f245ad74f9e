import type { ComponentType } from 'react';
import { lazyComponent } from '../app/lazyComponent.tsx';

type StaticCharts = typeof import('./StaticCharts.tsx');

/**
 * A chart from the static charts' chunk (StaticCharts.tsx), loaded after the first paint
 * (lazyComponent.tsx); until then an empty box of the chart's size with its label.
 */
export function lazyStaticChart<P extends { ariaLabel: string; height?: number }>(
  what: string,
  pick: (charts: StaticCharts) => ComponentType<P>,
  heightOf: number | ((props: P) => number),
): ComponentType<P> {
  const height = (props: P): { height: number } => ({
    height: props.height ?? (typeof heightOf === 'number' ? heightOf : heightOf(props)),
  });
  return lazyComponent(
    what,
    () => import('./StaticCharts.tsx'),
    pick,
    (props) => <div className="chart" role="img" aria-label={props.ariaLabel} style={height(props)} />,
    height,
  );
}
