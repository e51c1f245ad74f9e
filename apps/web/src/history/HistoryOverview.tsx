import type { ReactNode } from 'react';
import { MAX_ROLLUP_POINTS, ROLLUP_BASE_STEP_MS, type HistoryExtent } from '@aioscope/spec';
import { useHistoryEvents, useHistoryRollups } from '../api/history.ts';
import { OverviewStrip } from './OverviewStrip.tsx';
import type { TimeView } from './timeView.ts';

/** Points across the overview strip: about one per 2 px of a wide screen. */
const STRIP_POINTS = 600;

/** Start of a kept range rounded down, end rounded up to the roll-up step: the key stays put while recording. */
function stripRange(extent: HistoryExtent): { from: number; to: number } | null {
  const from = Math.min(extent.raw?.from ?? Infinity, extent.rollups?.from ?? Infinity);
  const to = Math.max(extent.raw?.to ?? -Infinity, extent.rollups?.to ?? -Infinity);
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return null;
  // A minute: the strip's query (up to a day of roll-ups) is asked again once a minute as the
  // kept range grows, not at every extent refresh.
  const step = 60 * ROLLUP_BASE_STEP_MS;
  return { from: Math.floor(from / step) * step, to: Math.ceil((to + 1) / step) * step };
}

/** The whole kept history of a target, with its events: the strip under the time controls. */
export function HistoryOverview({
  targetId,
  extent,
  view,
  onView,
}: {
  targetId: string;
  extent: HistoryExtent | undefined;
  view: TimeView;
  onView: (view: TimeView) => void;
}): ReactNode {
  const range = extent === undefined ? null : stripRange(extent);
  const stepMs =
    range === null
      ? ROLLUP_BASE_STEP_MS
      : Math.ceil(
          Math.max((range.to - range.from) / Math.min(STRIP_POINTS, MAX_ROLLUP_POINTS), ROLLUP_BASE_STEP_MS) /
            ROLLUP_BASE_STEP_MS,
        ) * ROLLUP_BASE_STEP_MS;
  const rollups = useHistoryRollups(targetId, range, stepMs);
  const events = useHistoryEvents(targetId, range);
  if (range === null) return null;
  return (
    <OverviewStrip
      from={range.from}
      to={range.to}
      points={rollups.data?.points ?? []}
      stepMs={rollups.data?.stepMs ?? stepMs}
      events={events.data?.events ?? []}
      view={view}
      onView={onView}
    />
  );
}
