import type { ReactNode } from 'react';
import { ROLLUP_BASE_STEP_MS, type TargetSummary } from '@aioscope/spec';
import { useHistoryRollups } from '../api/history.ts';
import { BytesPerReadPanel } from '../panels/BytesPerReadPanel.tsx';
import { InflightPanel } from '../panels/InflightPanel.tsx';
import { EmptyState } from '../panels/Panel.tsx';
import { WorkerPanel } from '../panels/WorkerPanel.tsx';
import type { RangeView } from './useTimeTravel.ts';

const CHART_POINTS = 300;

/**
 * A range longer than 15 minutes: read as roll-ups (never every raw frame, so a day draws as fast
 * as a minute) and drawn by the live view's own panels. Dragging on a chart narrows the range (the
 * page's SelectRangeContext); at 15 minutes or less the panels draw every sample again.
 */
export function LongRange({
  targetId,
  view,
  target,
}: {
  targetId: string;
  view: RangeView;
  target: TargetSummary | undefined;
}): ReactNode {
  // About one point per 2-3 px of a chart: finer steps draw as a solid band, not as detail.
  const stepMs = Math.max(
    ROLLUP_BASE_STEP_MS,
    Math.ceil((view.to - view.from) / CHART_POINTS / ROLLUP_BASE_STEP_MS) * ROLLUP_BASE_STEP_MS,
  );
  const rollups = useHistoryRollups(targetId, { from: view.from, to: view.to }, stepMs);
  const current = rollups.data !== undefined && rollups.data.from === view.from ? rollups.data : undefined;
  if (rollups.error) return <EmptyState>Cannot read the roll-ups: {rollups.error.message}</EmptyState>;
  if (current === undefined) return <EmptyState>Reading roll-ups…</EmptyState>;
  return (
    // id "live": the page's skip link lands on the panels whatever range they draw.
    <main className="panels" id="live" tabIndex={-1} data-testid="rollup-panels">
      <InflightPanel rollups={current} target={target} />
      <BytesPerReadPanel rollups={current} target={target} />
      <WorkerPanel rollups={current} target={target} />
    </main>
  );
}
