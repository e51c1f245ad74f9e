import type { ReactNode } from 'react';
import { MAX_ROLLUP_POINTS, ROLLUP_BASE_STEP_MS, type HistoryExtent } from '@aioscope/spec';
import { useHistoryEvents, useHistoryRollups } from '../api/history.ts';
import { OverviewStrip } from './OverviewStrip.tsx';
import { keptRange, stripQueryRange } from './overviewRange.ts';
import type { TimeView } from './timeView.ts';

/** Points across the overview strip: about one per 2 px of a wide screen. */
const STRIP_POINTS = 600;

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
  const kept = extent === undefined ? null : keptRange(extent);
  const range = kept === null ? null : stripQueryRange(kept);
  const stepMs =
    range === null
      ? ROLLUP_BASE_STEP_MS
      : Math.ceil(
          Math.max((range.to - range.from) / Math.min(STRIP_POINTS, MAX_ROLLUP_POINTS), ROLLUP_BASE_STEP_MS) /
            ROLLUP_BASE_STEP_MS,
        ) * ROLLUP_BASE_STEP_MS;
  const rollups = useHistoryRollups(targetId, range, stepMs);
  const events = useHistoryEvents(targetId, range);
  if (kept === null) return null;
  return (
    <OverviewStrip
      from={kept.from}
      to={kept.to}
      points={rollups.data?.points ?? []}
      stepMs={rollups.data?.stepMs ?? stepMs}
      events={events.data?.events ?? []}
      view={view}
      onView={onView}
    />
  );
}
