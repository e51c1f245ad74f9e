import { Fragment, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import { SERIES } from '@aioscope/core';
import { OVERVIEW_MINUTES, OVERVIEW_STEP_MS, type OverviewRow, type RollupPoint } from '@aioscope/spec';
import { useOverview } from '../api/overview.ts';
import { formatBytes, formatClockTime, formatDuration, formatNumber, formatPercent } from '../format.ts';
import { Explain } from '../panels/Panel.tsx';
import { matchesLabelFilter, newestValue, sparklinePath, type SparkReduce } from './sparkline.ts';
import { targetState } from './targetState.ts';

const SPARK_WIDTH = 120;
const SPARK_HEIGHT = 28;
/**
 * 10 s columns over the 10 minutes: two pixels each, so a busy server draws a line, not a block.
 * The server sends 10 s steps, one per column; a replica of an older aioscope (a rolling deploy)
 * still sends 1 s steps, and these become columns here.
 */
const SPARK_COLUMNS = 60;
const STEP = formatDuration(OVERVIEW_STEP_MS, 'span');

// Each sparkline's value per step, as core's SERIES computes it from a roll-up.
const readsMax = (point: RollupPoint): number | null => SERIES.readsInFlight.ofRollup(point, 'max');
const liveBytesPerRead = (point: RollupPoint): number | null => SERIES.liveBytesPerRead.ofRollup(point, 'mean');
const busyShareOf = (point: RollupPoint): number | null => SERIES.workerBusy.ofRollup(point, 'mean');

function Sparkline({
  row,
  value,
  top,
  reference,
  label,
  format,
  reduce,
}: {
  row: OverviewRow;
  value: (point: RollupPoint) => number | null;
  top: number;
  reference?: number | null;
  label: string;
  format: (value: number | null) => string;
  /** How the steps of a column become one value when there are more than columns: peaks keep their max. */
  reduce: SparkReduce;
}): ReactNode {
  const { points, stepMs } = row.sparkline;
  const to = (points.at(-1)?.t ?? Date.now()) + stepMs;
  // The last minutes kept, up to OVERVIEW_MINUTES: a server watched for one minute fills the width.
  const from = Math.max(to - OVERVIEW_MINUTES * 60_000, points[0]?.t ?? to - stepMs);
  const newest = newestValue(points, value);
  const path = sparklinePath(points, value, {
    from,
    to,
    stepMs,
    top,
    width: SPARK_WIDTH,
    height: SPARK_HEIGHT,
    columns: SPARK_COLUMNS,
    reduce,
  });
  const scale = `0–${format(top)}`;
  const refY = reference ? SPARK_HEIGHT - (Math.min(reference, top) / top) * (SPARK_HEIGHT - 2) - 1 : null;
  return (
    <div className="spark">
      <svg
        width={SPARK_WIDTH}
        height={SPARK_HEIGHT}
        viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`}
        role="img"
        aria-label={`${label} over the last ${formatDuration(to - from, 'span')}, scale ${scale}; newest ${formatDuration(stepMs, 'span')} step with a value: ${format(newest)}`}
      >
        {refY !== null ? <line className="spark-reference" x1={0} x2={SPARK_WIDTH} y1={refY} y2={refY} /> : null}
        <path className="spark-line" d={path} />
      </svg>
      <span className="spark-figures">
        <span className="spark-value">{format(newest)}</span>
        {/* The scale: without it a line at the top means 4 reads on one server and 400 on another. A
            series with no value at all has no line to scale. */}
        {newest !== null ? (
          <span className="spark-scale" aria-hidden="true">
            {scale}
          </span>
        ) : null}
      </span>
    </div>
  );
}

function OverviewTableRow({ row, onOpen }: { row: OverviewRow; onOpen: (id: string) => void }): ReactNode {
  const { target } = row;
  const status = targetState(target);
  const combineLimit = target.server?.ioCombineLimitBytes ?? 131_072;
  const open = (event: MouseEvent): void => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    onOpen(target.id);
  };
  return (
    <tr data-testid={`overview-row-${target.id}`} className={row.attention.score > 0 ? 'needs-attention' : ''}>
      <td>
        <a href={`/t/${target.id}`} onClick={open} className="overview-name">
          {withBreaks(target.name)}
        </a>
        <div className="labels">
          {Object.entries(row.labels).map(([key, value]) => (
            <span key={key} className="label-chip">
              {key}={value}
            </span>
          ))}
        </div>
      </td>
      <td>
        <span className={`badge badge-${status.tone}`}>{status.label}</span>
        {/* The reason, unless "needs attention" already says it. */}
        {target.status.message !== null && status.label !== 'live' && row.attention.reasons.length === 0 ? (
          <div className="overview-why">{target.status.message}</div>
        ) : null}
      </td>
      <td>
        {target.server === null ? '–' : `PostgreSQL ${target.server.version}`}
        <div className="muted">{target.server?.ioMethod ?? ''}</div>
      </td>
      <td>
        <Sparkline
          row={row}
          value={readsMax}
          top={Math.max(4, ...row.sparkline.points.map((p) => p.readsInFlight.max))}
          label="peak reads in flight"
          format={(v) => formatNumber(v, 0)}
          reduce="max"
        />
      </td>
      <td>
        <Sparkline
          row={row}
          value={liveBytesPerRead}
          top={combineLimit}
          reference={combineLimit}
          label={`bytes per read against io_combine_limit ${formatBytes(combineLimit)}`}
          format={(v) => formatBytes(v, 0)}
          reduce="mean"
        />
      </td>
      <td>
        <Sparkline
          row={row}
          value={busyShareOf}
          top={1}
          label="io worker busy share"
          format={(v) => formatPercent(v)}
          reduce="mean"
        />
      </td>
      <td data-testid="overview-attention">
        {row.attention.reasons.length === 0 ? (
          <span className="muted">nothing</span>
        ) : (
          <ul className="attention">
            {row.attention.reasons.map((reason) => (
              <li key={reason.kind}>{reason.message}</li>
            ))}
          </ul>
        )}
      </td>
      <td className="numeric">
        {row.sampling.achievedHz === null ? '– (not known here)' : `${formatNumber(row.sampling.achievedHz, 0)} Hz`}
        <div className="muted">{row.sampling.requested === 'auto' ? 'auto' : `asked ${row.sampling.requested} Hz`}</div>
        {/* Round-trip time over wall time: an upper bound of the server's share of one core. A line of
            its own, so the column stays narrow enough for the table to fit a laptop's width. */}
        {row.sampling.dbCostShare !== null && (
          <div className="muted sampling-cost">cost ≤ {formatPercent(row.sampling.dbCostShare)} of a core</div>
        )}
        {row.target.replica !== undefined && <div className="muted">by replica {row.target.replica}</div>}
      </td>
    </tr>
  );
}

/**
 * The landing page when aioscope watches several servers: one row each, worst first ("needs
 * attention": refused, disconnected, stale, saturated io workers, reads not combining, a failed
 * audit rule), sparklines of the last minutes, a filter on names and labels.
 */
export function OverviewPage({ onOpen }: { onOpen: (id: string) => void }): ReactNode {
  const overview = useOverview(true);
  const [filter, setFilter] = useState('');
  const rows = useMemo(
    () =>
      (overview.data?.rows ?? [])
        .filter((row) => matchesLabelFilter(row.labels, row.target.name, filter))
        .sort((a, b) => b.attention.score - a.attention.score || a.target.name.localeCompare(b.target.name)),
    [overview.data, filter],
  );
  const file = overview.data?.targetsFile ?? null;
  return (
    <main className="overview-page" id="live" tabIndex={-1} data-testid="overview-page">
      <div className="overview-toolbar">
        <h2>
          Servers{' '}
          <Explain label="the overview">
            Every server aioscope watches, the one that needs attention first. Sparklines: the last {OVERVIEW_MINUTES}{' '}
            minutes in {STEP} steps (peak reads in flight from pg_aios, bytes per read of new reads against
            io_combine_limit, io worker busy share from pg_stat_activity), each from every sample at its server&apos;s
            sample rate. The figure beside a sparkline is its newest step with a value: the last {STEP} up to a second
            or two ago, or for bytes per read, when no read started since, the last reads seen.
          </Explain>
        </h2>
        <label className="overview-filter">
          filter{' '}
          <input
            className="toolbar-control"
            type="search"
            value={filter}
            placeholder="name or label, e.g. env=prod"
            onChange={(event) => setFilter(event.target.value)}
            data-testid="overview-filter"
          />
        </label>
        {file !== null ? (
          <span className="muted">
            targets file {file.path}, read {formatClockTime(file.loadedAt)}
          </span>
        ) : null}
      </div>
      {file?.rejected ? (
        <div className="status-detail status-bad" role="alert" data-testid="targets-file-rejected">
          The changed targets file was not loaded (the servers below keep running): {file.rejected}
        </div>
      ) : null}
      {overview.error ? (
        <div className="status-detail status-bad">Cannot load the overview: {overview.error.message}</div>
      ) : null}
      <div className="table-scroll">
        <table className="overview-table">
          <thead>
            <tr>
              <th scope="col">server</th>
              <th scope="col">status</th>
              <th scope="col">version</th>
              <th scope="col">reads in flight</th>
              <th scope="col">bytes per read</th>
              <th scope="col">io workers busy</th>
              <th scope="col">needs attention</th>
              <th scope="col">
                sampling{' '}
                <Explain label="sampling rate and cost">
                  The fast tick&apos;s achieved rate over the last 10 s, the rate asked for (a number, or auto: the cost
                  budget picks it), and its cost: the share of wall time its round trips took, an upper bound of the
                  database-side cost of watching the server as a share of one core (it includes the network and
                  aioscope&apos;s own event loop). With replicas sharing the servers, the replica that samples each.
                </Explain>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <OverviewTableRow key={row.target.id} row={row} onOpen={onOpen} />
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && overview.data !== undefined ? <p className="muted">No server matches “{filter}”.</p> : null}
    </main>
  );
}

/**
 * A name made from a URL (user@host:port/db) may break after its @, : and / rather than mid-word,
 * so the server column stays narrow enough for the table to fit a laptop's width.
 */
function withBreaks(name: string): ReactNode[] {
  return name.split(/(?<=[@:/])/).map((part, index) => (
    <Fragment key={index}>
      {index > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}
