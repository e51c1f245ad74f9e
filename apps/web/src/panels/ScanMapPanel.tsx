import { memo, type ReactNode } from 'react';
import type { ScanView, TargetSummary } from '@aioscope/spec';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { EmptyState, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';

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

function ScanStrip({ scan, blockSize }: { scan: ScanView; blockSize: number }): ReactNode {
  // Without a known size, scale to the furthest block seen so the strip still reads left to right.
  const scale = Math.max(scan.relation.blocks ?? 0, scan.furthest + 1, 1);
  const pct = (block: number): string => `${Math.min(100, (block / scale) * 100).toFixed(3)}%`;
  const lookAhead = scan.lookAheadBlocks;
  return (
    <div className="scan">
      <div className="scan-title">
        <span className="scan-relation">{relationLabel(scan)}</span>
        <span className="scan-meta">
          pid {scan.pid} · {scan.activity} ·{' '}
          {scan.completed ? 'read the whole relation' : scan.ended ? 'no reads in flight' : 'reading'}
        </span>
      </div>
      <div
        className="scan-strip"
        role="img"
        aria-label={`${relationLabel(scan)}: frontier at block ${scan.frontier} of ${scan.relation.blocks ?? 'unknown'}`}
      >
        {doneSegments(scan, scale).map(([from, to]) => (
          <div key={from} className="scan-done" style={{ left: pct(from), width: pct(to - from) }} />
        ))}
        {scan.startBlock > 0 ? (
          <div
            className="scan-start"
            style={{ left: pct(scan.startBlock) }}
            title={`started at block ${scan.startBlock}`}
          />
        ) : null}
        {scan.inflight.map(([first, last]) => (
          <div
            key={first}
            className="scan-inflight"
            style={{ left: pct(first), width: `max(2px, ${pct(last + 1 - first)})` }}
            title={`blocks ${first}..${last} in flight`}
          />
        ))}
        <div
          className="scan-frontier"
          style={{ left: pct(scan.frontier) }}
          title={`frontier: block ${scan.frontier}`}
        />
      </div>
      <div className="scan-figures">
        <span title="Blocks read since the scan started / relation size (pg_relation_size). Counted from the end of reads seen leaving pg_aios, or the start of the lowest read still in flight. A scan that wraps around (synchronized seqscan) is complete when it is back where it started.">
          progress <strong data-testid="scan-progress">{formatPercent(scan.progress)}</strong>
        </span>
        <span title="Relation-wide block the scan has reached, and where it started (a synchronized scan joins mid-table)">
          at block <strong>{formatNumber(scan.frontier, 0)}</strong> / {formatNumber(scan.relation.blocks, 0)}
          {scan.startBlock > 0 ? ` (started at ${formatNumber(scan.startBlock, 0)})` : ''}
        </span>
        <span title="Furthest block in flight now minus the frontier: how far ahead the read stream reads.">
          look-ahead <strong>{formatNumber(lookAhead, 0)}</strong> blocks ({formatBytes(lookAhead * blockSize)})
        </span>
        <span title="Frontier advance over the server's clock, last 2 s.">
          speed <strong>{scan.bytesPerSecond === null ? '–' : `${formatBytes(scan.bytesPerSecond)}/s`}</strong>
        </span>
        <span title="Ranges of blocks in flight in pg_aios at the latest sample">
          in flight <strong>{scan.inflight.length}</strong> range{scan.inflight.length === 1 ? '' : 's'}
        </span>
      </div>
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
  const scans = [...current].sort((a, b) => Number(a.ended) - Number(b.ended) || a.startedAt - b.startedAt);
  return (
    <Panel
      title="Live scan map"
      testId="panel-scan-map"
      source={`pg_aios target_desc block ranges at ${target?.sampleRateHz ?? 0} Hz; names from pg_filenode_relation, sizes from pg_relation_size`}
    >
      {unavailable !== null ? (
        <EmptyState>{unavailable}</EmptyState>
      ) : scans.length === 0 ? (
        <EmptyState>
          No relation is being read through AIO right now. Scans appear here while their reads are in flight.
        </EmptyState>
      ) : (
        <div className="scans">
          {scans.map((scan) => (
            <button
              type="button"
              key={scan.key}
              className={`scan-button${scan.pid === selectedPid ? ' selected' : ''}${scan.ended ? ' ended' : ''}`}
              onClick={() => onSelectPid(scan.pid)}
            >
              <ScanStrip scan={scan} blockSize={target?.server?.blockSize ?? 8192} />
            </button>
          ))}
        </div>
      )}
      <p className="caveat">
        Strip: the relation, left to right. Shaded: read so far; bright: blocks in flight now; white line: where the
        scan is; orange line: where it started, when not at block 0 (a synchronized seqscan joins another scan
        mid-table). Reads shorter than the sample interval can be missed, and blocks found in shared buffers need no
        I/O, so a scan may stop short of 100 % here.
      </p>
    </Panel>
  );
});
