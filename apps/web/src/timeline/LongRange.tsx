import type { ReactNode } from 'react';
import { ROLLUP_BASE_STEP_MS, type TargetSummary } from '@aioscope/spec';
import { useHistoryRollups } from '../api/history.ts';
import { RollupPanels } from './RollupPanels.tsx';
import type { RangeView } from './useTimeTravel.ts';

const CHART_POINTS = 300;

/** A range longer than 15 minutes: read as roll-ups, drawn by RollupPanels. */
export function LongRange({
  targetId,
  view,
  target,
  onSelectRange,
}: {
  targetId: string;
  view: RangeView;
  target: TargetSummary | undefined;
  onSelectRange: (from: number, to: number) => void;
}): ReactNode {
  // About one point per 2-3 px of a chart: finer steps draw as a solid band, not as detail.
  const stepMs = Math.max(
    ROLLUP_BASE_STEP_MS,
    Math.ceil((view.to - view.from) / CHART_POINTS / ROLLUP_BASE_STEP_MS) * ROLLUP_BASE_STEP_MS,
  );
  const rollups = useHistoryRollups(targetId, { from: view.from, to: view.to }, stepMs);
  const current = rollups.data !== undefined && rollups.data.from === view.from ? rollups.data : undefined;
  return (
    <RollupPanels
      rollups={current}
      error={rollups.error?.message ?? null}
      target={target}
      onSelectRange={onSelectRange}
    />
  );
}
