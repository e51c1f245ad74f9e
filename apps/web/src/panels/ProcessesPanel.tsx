import { memo, type ReactNode } from 'react';
import type { ProcessView, TargetSummary } from '@aioscope/spec';
import type { ProcessRow } from '../live/stableProcesses.ts';
import { formatBytes, formatDuration } from '../format.ts';
import { EmptyState, Explain, Panel } from './Panel.tsx';
import { refusedReason } from './reasons.ts';

/** The server's I/O concurrency settings as the caveat names them; unread settings are not shown as "?". */
function concurrencyLimits(target: TargetSummary | undefined): string {
  const setting = (name: string): string | undefined => target?.server?.settings.find((s) => s.name === name)?.display;
  const effective = setting('effective_io_concurrency');
  const maintenance = setting('maintenance_io_concurrency');
  if (effective === undefined || maintenance === undefined)
    return 'Limits are the server\u2019s I/O concurrency settings (not read from this server yet);';
  return `Limits are the server\u2019s settings (${effective} effective / ${maintenance} maintenance I/O concurrency);`;
}

export interface ProcessesPanelProps {
  /** In a stable order, with processes that just left kept (dimmed) for a few seconds. */
  rows: readonly ProcessRow[];
  target: TargetSummary | undefined;
  /** The server's "now", epoch ms, for time in statement. */
  serverNow: number;
  selectedPid: number | null;
  onSelectPid: (pid: number) => void;
}

function limitText(process: ProcessView): string {
  return process.limit.value === null ? '' : ` / ${process.limit.value}`;
}

/** Memoized: its inputs change twice a second (processes) and once a second (serverNow, rounded by the caller). */
export const ProcessesPanel = memo(function ProcessesPanel({
  rows,
  target,
  serverNow,
  selectedPid,
  onSelectPid,
}: ProcessesPanelProps): ReactNode {
  return (
    <Panel
      title="Processes doing I/O"
      testId="panel-processes"
      source="pg_stat_activity joined with pg_aios by pid, refreshed twice a second · io workers and background processes included"
    >
      {rows.length === 0 ? (
        <EmptyState>
          {refusedReason(target, 'Not sampled') ?? 'No process has reads in flight or waits on I/O right now.'}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="processes">
            <thead>
              <tr>
                <th>pid</th>
                <th>process</th>
                <th>database / user</th>
                <th>doing</th>
                <th>
                  reads in flight{' '}
                  <Explain label="reads in flight">
                    pg_aios reads issued by this process / the concurrency limit for what it is doing:
                    effective_io_concurrency, or maintenance_io_concurrency for VACUUM, ANALYZE and index builds (server
                    settings; a session may SET its own). io_max_concurrency caps both.
                  </Explain>
                </th>
                <th>
                  bytes <Explain label="bytes">Sum of pg_aios.length of its reads in flight.</Explain>
                </th>
                <th>
                  wait now <Explain label="wait now">pg_stat_activity wait_event_type: wait_event, now.</Explain>
                </th>
                <th>
                  in statement{' '}
                  <Explain label="in statement">Time since query_start, on the server&apos;s clock.</Explain>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ process, gone }) => (
                <tr
                  key={process.pid}
                  className={
                    [process.pid === selectedPid ? 'selected' : '', gone ? 'gone' : ''].join(' ').trim() || undefined
                  }
                  onClick={() => onSelectPid(process.pid)}
                  data-testid={`process-row-${process.pid}`}
                  aria-label={gone ? `pid ${process.pid}: no I/O in the last seconds` : undefined}
                >
                  <td className="num">
                    <button type="button" className="link" onClick={() => onSelectPid(process.pid)}>
                      {process.pid}
                    </button>
                  </td>
                  <td>{process.backendType}</td>
                  <td>{process.database === null ? '—' : `${process.database} / ${process.user ?? '—'}`}</td>
                  {/* Cut to the column's width; the whole query is in the process detail. */}
                  <td className="query">
                    {process.backendType === 'client backend' && process.queryPreview !== null ? (
                      process.queryPreview.slice(0, 100)
                    ) : (
                      <span className="activity">{process.activity}</span>
                    )}
                  </td>
                  <td className="num">
                    {process.backendType === 'io worker' ? '—' : `${process.readsInFlight}${limitText(process)}`}
                  </td>
                  <td className="num">
                    {process.backendType === 'io worker' ? '—' : formatBytes(process.bytesInFlight)}
                  </td>
                  <td>
                    {process.waitEvent === null
                      ? 'running (no wait)'
                      : `${process.waitEventType ?? ''}: ${process.waitEvent}`}
                  </td>
                  <td className="num">
                    {process.queryStart === null || process.backendType === 'io worker'
                      ? '—'
                      : formatDuration(Math.max(0, serverNow - process.queryStart), 'age')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="caveat">
        {concurrencyLimits(target)} a session that SET its own is not visible to SQL. A dimmed row has had no I/O for a
        moment and leaves after 5 s. Select a row for its timeline and counters.
      </p>
    </Panel>
  );
});
