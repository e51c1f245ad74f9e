import { useMemo, type ReactNode } from 'react';
import type { LiveWindowSummary } from '@aioscope/core';
import type { IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
import { HistogramChart } from '../charts/HistogramChart.tsx';
import { blocksPerReadBins, sameBins } from './blocksPerReadBins.ts';
import { formatBytes, formatClockTime, formatNumber } from '../format.ts';
import { useThrottledValue } from '../live/useThrottledValue.ts';
import { EmptyState, Explain, Figure, Panel } from './Panel.tsx';
import { aiosUnavailableReason } from './reasons.ts';
import { useWindowText } from '../timeline/windowText.ts';

/** Reads of at most this size on average mean the scan is not being combined. */
export const NOT_COMBINING_BYTES = 16 * 1024;
const HISTOGRAM_REDRAW_MS = 1_000;
/** Finished-statement batches listed (pg_stat_io deltas that carried reads). */
const BATCHES_SHOWN = 5;

export interface ReadCombiningPanelProps {
  frames: readonly LiveFrame[];
  /** summarizeLiveWindow(frames), computed once for the page. */
  summary: LiveWindowSummary;
  deltas: readonly IoStatDelta[];
  target: TargetSummary | undefined;
}

export function ReadCombiningPanel({ frames, summary, deltas, target }: ReadCombiningPanelProps): ReactNode {
  const windowText = useWindowText();
  const blockSize = target?.server?.blockSize ?? 8192;
  const combineBlocks = Math.round((target?.server?.ioCombineLimitBytes ?? 131072) / blockSize);
  const maxCombineBlocks = Math.round((target?.server?.ioMaxCombineLimitBytes ?? 131072) / blockSize);
  const bins = useMemo(
    () => blocksPerReadBins(summary.readsByBlocks, [combineBlocks, maxCombineBlocks]),
    [summary.readsByBlocks, combineBlocks, maxCombineBlocks],
  );
  // The histogram takes new bins once a second at most, not at the page's render rate, and none
  // while its bars stay the same (an idle server, a scan of cached pages).
  const shownBins = useThrottledValue(bins, HISTOGRAM_REDRAW_MS, sameBins);
  const batches = deltas
    .filter((delta) => !delta.reset && delta.reads > 0)
    .slice(-BATCHES_SHOWN)
    .reverse();
  const unavailable = aiosUnavailableReason(target, frames[frames.length - 1]);
  const notCombining =
    summary.liveBytesPerRead !== null && summary.liveBytesPerRead <= NOT_COMBINING_BYTES && summary.distinctReads >= 20;
  // Stable between renders, so the memoized histogram only redraws when its bins change.
  const marks = useMemo(
    () =>
      maxCombineBlocks === combineBlocks
        ? [{ x: combineBlocks, label: 'io_combine_limit' }]
        : [
            { x: combineBlocks, label: 'io_combine_limit' },
            { x: maxCombineBlocks, label: 'io_max_combine_limit' },
          ],
    [combineBlocks, maxCombineBlocks],
  );

  return (
    <Panel
      title="Read combining"
      testId="panel-read-combining"
      source={`blocks per read: pg_aios handle_data_len of distinct reads over ${windowText.long} at ${target?.sampleRateHz ?? 0} Hz · finished statements: pg_stat_io`}
    >
      {unavailable !== null ? (
        <EmptyState>{unavailable}</EmptyState>
      ) : (
        <>
          <div className="figures">
            <Figure
              label="live mean"
              value={formatBytes(summary.liveBytesPerRead)}
              explain={`Mean pg_aios.length of the distinct reads seen in ${windowText.long}.`}
            />
            <Figure
              label="reads seen"
              value={formatNumber(summary.distinctReads, 0)}
              testId="reads-seen"
              explain={`Distinct reads (pid, io_id, io_generation) seen in pg_aios samples in ${windowText.long}. Fast reads between samples are not seen.`}
            />
            <Figure
              label="io_combine_limit"
              value={`${combineBlocks} blocks`}
              explain={`${formatBytes(combineBlocks * blockSize)}: the largest combined read.`}
            />
          </div>
          {notCombining ? (
            <div className="flag" role="alert" data-testid="not-combining">
              Reads are not being combined (mean {formatBytes(summary.liveBytesPerRead)} ≤{' '}
              {formatBytes(NOT_COMBINING_BYTES)}). Likely causes: io_combine_limit lowered for the session or server;
              random access (index scans, bitmap scans over scattered pages); a table small enough to be read a few
              blocks at a time; most blocks already in shared buffers.
            </div>
          ) : null}
          <HistogramChart
            ariaLabel={`histogram of blocks per read over ${windowText.spoken}`}
            bins={shownBins}
            xLabel={`blocks per read (${formatBytes(blockSize)} each) · dashed: io_combine_limit${maxCombineBlocks !== combineBlocks ? ', io_max_combine_limit' : ''}`}
            yLabel="reads"
            formatX={String}
            xUnit="blocks"
            references={marks}
          />
          <table className="counters" aria-label="recent pg_stat_io read batches">
            <thead>
              <tr>
                <th>
                  finished by{' '}
                  <Explain label="finished by">Server time of the pg_stat_io sample that carried the counts.</Explain>
                </th>
                <th>reads</th>
                <th>bytes</th>
                <th>
                  bytes / read <Explain label="bytes / read">Δread_bytes / Δreads of that sample: exact.</Explain>
                </th>
              </tr>
            </thead>
            <tbody>
              {batches.length === 0 ? (
                <tr>
                  <td colSpan={4}>no statement finished reading in the window yet</td>
                </tr>
              ) : (
                batches.map((delta) => (
                  <tr key={delta.t}>
                    <td>{formatClockTime(delta.t)}</td>
                    <td className="num">{formatNumber(delta.reads, 0)}</td>
                    <td className="num">{formatBytes(delta.readBytes)}</td>
                    <td className="num">{formatBytes(delta.bytesPerRead)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}
