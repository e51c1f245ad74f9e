import { memo, useMemo, type ReactNode } from 'react';
import { layoutScanMap, type ScanGroup } from '@aioscope/core';
import type { ScanView, TargetSummary } from '@aioscope/spec';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { EmptyState, Explain, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';
import { LIVE_WINDOW_TEXT, useWindowText } from '../timeline/windowText.ts';

export interface ScanMapPanelProps {
  /** Whether a first sample arrived (the empty-state reason depends on it). */
  hasSample: boolean;
  scans: readonly ScanView[];
  target: TargetSummary | undefined;
  selectedPid: number | null;
  onSelectPid: (pid: number) => void;
}

function relationLabel(scan: ScanView): string {
  const fork = scan.relation.fork === 'main' ? '' : ` (${scan.relation.fork} fork)`;
  if (scan.relation.name !== null) return `${scan.relation.name}${fork}`;
  return `relfilenode ${scan.relation.relfilenode} in database ${scan.relation.databaseOid}${fork} (resolving …)`;
}

/** The part read so far, from the start block in scan order: one segment, or two once it wrapped. */
function doneSegments(scan: ScanView, scale: number): [number, number][] {
  const end = scan.startBlock + scan.blocksDone;
  if (end <= scale) return [[scan.startBlock, end]];
  return [
    [scan.startBlock, scale],
    [0, end - scale],
  ];
}

/** One process's reads on the relation: a strip, and its label when the scan has several lanes. */
function ScanLane({ scan, laneLabel }: { scan: ScanView; laneLabel: string | null }): ReactNode {
  // Without a known size, scale to the furthest block seen so the strip still reads left to right.
  const scale = Math.max(scan.relation.blocks ?? 0, scan.furthest + 1, 1);
  const pct = (block: number): string => `${Math.min(100, (block / scale) * 100).toFixed(3)}%`;
  return (
    <div className="scan-lane">
      {laneLabel === null ? null : (
        <div className="scan-lane-label">
          {laneLabel} · look-ahead {formatNumber(scan.lookAheadBlocks, 0)} blocks
          {scan.ended ? ' · no reads in flight' : ''}
        </div>
      )}
      <div
        className="scan-strip"
        role="img"
        aria-label={`${relationLabel(scan)}${laneLabel === null ? '' : `, ${laneLabel}`}: frontier at block ${scan.frontier} of ${scan.relation.blocks ?? 'unknown'}`}
      >
        {doneSegments(scan, scale).map(([from, to]) => (
          <div key={from} className="scan-done" style={{ left: pct(from), width: pct(to - from) }} />
        ))}
        {scan.startBlock > 0 ? <div className="scan-start" style={{ left: pct(scan.startBlock) }} /> : null}
        {scan.inflight.map(([first, last]) => (
          <div
            key={first}
            className="scan-inflight"
            style={{ left: pct(first), width: `max(2px, ${pct(last + 1 - first)})` }}
          />
        ))}
        <div className="scan-frontier" style={{ left: pct(scan.frontier) }} />
      </div>
    </div>
  );
}

function laneLabelOf(group: ScanGroup, lane: ScanView): string | null {
  if (group.lanes.length === 1) return null;
  return lane.pid === group.pid ? `leader ${lane.pid}` : `parallel worker ${lane.pid}`;
}

function describeLanes(group: ScanGroup): string {
  const workers = group.lanes.filter((lane) => lane.pid !== group.pid).length;
  return workers === 0 ? '' : ` · parallel: ${workers} worker${workers === 1 ? '' : 's'}`;
}

function ScanGroupView({
  group,
  blockSize,
  onSelectPid,
}: {
  group: ScanGroup;
  blockSize: number;
  onSelectPid: (pid: number) => void;
}): ReactNode {
  const lead = group.lanes[0] as ScanView;
  const lookAhead = lead.lookAheadBlocks;
  const speeds = group.lanes.map((lane) => lane.bytesPerSecond).filter((speed): speed is number => speed !== null);
  const ranges = group.lanes.reduce((sum, lane) => sum + lane.inflight.length, 0);
  const frontier = Math.max(...group.lanes.map((lane) => lane.frontier));
  return (
    <div className="scan">
      <div className="scan-title">
        <button type="button" className="scan-relation scan-select" onClick={() => onSelectPid(group.pid)}>
          {relationLabel(lead)}
        </button>
        <span className="scan-meta">
          pid {group.pid} · {group.activity}
          {describeLanes(group)} ·{' '}
          {group.completed ? 'read the whole relation' : group.active ? 'reading' : 'no reads in flight'}
        </span>
      </div>
      {group.lanes.map((lane) => (
        <ScanLane key={lane.key} scan={lane} laneLabel={laneLabelOf(group, lane)} />
      ))}
      <div className="scan-figures">
        <span>
          progress <strong data-testid="scan-progress">{formatPercent(group.progress)}</strong>
          <Explain label="progress">
            Blocks read since the scan started / relation size (pg_relation_size). Counted from the end of reads seen
            leaving pg_aios, or the start of the lowest read still in flight. A scan that wraps around (synchronized
            seqscan) is complete when it is back where it started. With parallel workers: the furthest lane.
          </Explain>
        </span>
        <span>
          at block <strong>{formatNumber(frontier, 0)}</strong> / {formatNumber(lead.relation.blocks, 0)}
          {lead.startBlock > 0 ? ` (started at ${formatNumber(lead.startBlock, 0)})` : ''}
        </span>
        {group.lanes.length === 1 ? (
          <span>
            look-ahead <strong>{formatNumber(lookAhead, 0)}</strong> blocks ({formatBytes(lookAhead * blockSize)})
            <Explain label="look-ahead">
              Furthest block in flight now minus the frontier: how far ahead the read stream reads.
            </Explain>
          </span>
        ) : null}
        <span>
          speed{' '}
          <strong>
            {speeds.length === 0 ? '–' : `${formatBytes(speeds.reduce((sum, speed) => sum + speed, 0))}/s`}
          </strong>
          <Explain label="speed">Frontier advance over the server's clock, last 2 s, summed over lanes.</Explain>
        </span>
        <span>
          in flight <strong>{ranges}</strong> range{ranges === 1 ? '' : 's'}
        </span>
      </div>
    </div>
  );
}

function FinishedScans({
  groups,
  selectedPid,
  onSelectPid,
}: {
  groups: readonly ScanGroup[];
  selectedPid: number | null;
  onSelectPid: (pid: number) => void;
}): ReactNode {
  if (groups.length === 0) return null;
  return (
    <div className="scans-finished">
      <h3>Recently finished</h3>
      <ul>
        {groups.map((group) => (
          <li key={group.key}>
            <button
              type="button"
              className={`scan-finished${group.pid === selectedPid ? ' selected' : ''}`}
              onClick={() => onSelectPid(group.pid)}
            >
              <span className="scan-relation">{relationLabel(group.lanes[0] as ScanView)}</span>
              <span className="scan-meta">
                pid {group.pid} · {group.activity}
                {describeLanes(group)} ·{' '}
                {group.completed ? 'read the whole relation' : `stopped at ${formatPercent(group.progress)}`} · took{' '}
                {formatNumber((group.lastSeenAt - group.startedAt) / 1000, 1)} s
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Memoized: the map arrives 5 times a second, not with every render. */
export const ScanMapPanel = memo(function ScanMapPanel({
  hasSample,
  scans: current,
  target,
  selectedPid,
  onSelectPid,
}: ScanMapPanelProps): ReactNode {
  const unavailable = aiosUnavailableReason(target, hasSample);
  const layout = useMemo(() => layoutScanMap(current), [current]);
  const blockSize = target?.server?.blockSize ?? 8192;
  // A recorded moment is not live: the title says which it is.
  const live = useWindowText() === LIVE_WINDOW_TEXT;
  return (
    <Panel
      title={live ? 'Live scan map' : 'Scan map at the moment shown'}
      testId="panel-scan-map"
      source={`pg_aios target_desc block ranges at ${target?.sampleRateHz ?? 0} Hz; names from pg_filenode_relation, sizes from pg_relation_size`}
    >
      {unavailable !== null ? (
        <EmptyState>{unavailable}</EmptyState>
      ) : layout.active.length === 0 && layout.finished.length === 0 ? (
        <EmptyState>
          No relation is being read through AIO right now. Scans appear here while their reads are in flight.
        </EmptyState>
      ) : (
        <>
          <div className="scans">
            {layout.active.length === 0 ? (
              <p className="muted">No scan is reading right now.</p>
            ) : (
              layout.active.map((group) => (
                // The card is clickable for a mouse; the relation name is its button for keyboards.
                <div
                  key={group.key}
                  className={`scan-button${group.pid === selectedPid ? ' selected' : ''}`}
                  onClick={() => onSelectPid(group.pid)}
                >
                  <ScanGroupView group={group} blockSize={blockSize} onSelectPid={onSelectPid} />
                </div>
              ))
            )}
            {layout.moreActive > 0 ? (
              <p className="muted" data-testid="scans-more">
                and {layout.moreActive} more active scan{layout.moreActive === 1 ? '' : 's'} (the {layout.active.length}{' '}
                that started first are drawn)
              </p>
            ) : null}
          </div>
          <FinishedScans groups={layout.finished} selectedPid={selectedPid} onSelectPid={onSelectPid} />
        </>
      )}
      <p className="caveat">
        Strip: the relation, left to right. Shaded: read so far; bright: blocks in flight now; white line: where the
        scan is; orange line: where it started, when not at block 0 (a synchronized seqscan joins another scan
        mid-table). Reads shorter than the sample interval can be missed, and blocks found in shared buffers need no
        I/O, so a scan may stop short of 100&nbsp;% here.
      </p>
    </Panel>
  );
});
