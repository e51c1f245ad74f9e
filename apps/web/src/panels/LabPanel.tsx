import { memo, useState, type FormEvent, type ReactNode } from 'react';
import { LAB_PRESETS, parseVariants } from '@aioscope/core';
import { CACHE_STATES, type CacheState, type LabExperiment, type TargetSummary } from '@aioscope/spec';
import { useLabExperiment, useLabExperiments, useLabInfo, useStartExperiment } from '../api/lab.ts';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { EmptyState, Panel } from './Panel.tsx';

const CACHE_LABELS: Record<CacheState, string> = {
  cold: 'cold (evict shared buffers and the OS page cache)',
  'shared-buffers-cold': 'shared buffers cold, OS cache warm',
  warm: 'warm (no eviction)',
};

/** Median per variant as a bar, with the min–max range drawn over it: the noise next to the signal. */
function MedianChart({ experiment }: { experiment: LabExperiment }): ReactNode {
  const scale = Math.max(...experiment.summary.map((row) => row.maxMs), 1);
  const pct = (ms: number): string => `${((ms / scale) * 100).toFixed(2)}%`;
  return (
    <div className="lab-chart" role="img" aria-label="median execution time per variant, with min–max">
      {experiment.summary.map((row) => (
        <div className="lab-chart-row" key={row.variant}>
          <span className="lab-chart-label">{row.variant}</span>
          <span className="lab-chart-track">
            <span className="lab-chart-bar" style={{ width: pct(row.medianMs) }} />
            <span className="lab-chart-range" style={{ left: pct(row.minMs), width: pct(row.maxMs - row.minMs) }} />
          </span>
          <span className="lab-chart-value">{formatNumber(row.medianMs, 1)} ms</span>
        </div>
      ))}
      <div className="lab-chart-axis">0 ms … {formatNumber(scale, 0)} ms · bar: median · line: min–max</div>
    </div>
  );
}

function ResultTable({ experiment }: { experiment: LabExperiment }): ReactNode {
  const baseline = experiment.definition.variants[experiment.definition.baseline]?.name ?? '';
  return (
    <>
      <table className="lab-results" data-testid="lab-medians">
        <thead>
          <tr>
            <th>variant</th>
            <th className="num" title="Runs finished for this variant">
              runs
            </th>
            <th className="num" title="Median EXPLAIN ANALYZE execution time">
              median
            </th>
            <th className="num" title="Fastest and slowest run: the noise">
              min–max
            </th>
            <th className="num" title={`Median / median of ${baseline}`}>
              vs {baseline}
            </th>
            <th title="Median of Δread_bytes / Δreads of the run's own backend (pg_stat_get_backend_io)">
              bytes / read
            </th>
            <th
              className="num"
              title="Median EXPLAIN I/O read time (track_io_timing): time the backend waited for reads"
            >
              I/O wait
            </th>
          </tr>
        </thead>
        <tbody>
          {experiment.summary.map((row) => (
            <tr key={row.variant}>
              <td>{row.variant}</td>
              <td className="num">{row.runs}</td>
              <td className="num">{formatNumber(row.medianMs, 1)} ms</td>
              <td className="num">
                {formatNumber(row.minMs, 1)}–{formatNumber(row.maxMs, 1)} ms
              </td>
              <td className="num">{row.ratioToBaseline.toFixed(2)}×</td>
              <td className="num">{formatBytes(row.medianBytesPerRead)}</td>
              <td className="num">
                {row.medianIoReadTimeMs === null ? '–' : `${formatNumber(row.medianIoReadTimeMs, 1)} ms`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MedianChart experiment={experiment} />
      {experiment.notes.length > 0 ? (
        <ul className="lab-notes">
          {experiment.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      <details className="lab-runs">
        <summary>every run ({experiment.runs.length})</summary>
        <table>
          <thead>
            <tr>
              <th>round</th>
              <th>variant</th>
              <th>io_method</th>
              <th title="Share of the table in the OS page cache just before the run (fincore)">OS cache before</th>
              <th>time</th>
              <th>shared reads</th>
              <th>bytes / read</th>
            </tr>
          </thead>
          <tbody>
            {experiment.runs.map((run) => (
              <tr key={`${run.round}-${run.variant}`}>
                <td className="num">{run.round}</td>
                <td>{run.variant}</td>
                <td>{run.ioMethod ?? '–'}</td>
                <td className="num">{formatPercent(run.osResidencyBefore)}</td>
                <td className="num">{formatNumber(run.executionMs, 1)} ms</td>
                <td className="num">{formatNumber(run.sharedReadBlocks, 0)} blocks</td>
                <td className="num">{formatBytes(run.bytesPerRead)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <p className="lab-exports">
        Export:{' '}
        <a href={`/api/lab/experiments/${experiment.id}/export?format=md`} download>
          Markdown
        </a>{' '}
        ·{' '}
        <a href={`/api/lab/experiments/${experiment.id}/export?format=csv`} download>
          CSV
        </a>{' '}
        · saved as {experiment.id}.json in the data folder
      </p>
    </>
  );
}

/** Memoized: it follows its own queries, not the 10 Hz page renders. */
export const LabPanel = memo(function LabPanel({ target }: { target: TargetSummary | undefined }): ReactNode {
  const info = useLabInfo();
  const list = useLabExperiments();
  const start = useStartExperiment();
  const [selected, setSelected] = useState<string | null>(null);
  const experiment = useLabExperiment(selected);
  const [variants, setVariants] = useState(LAB_PRESETS[0]?.variants ?? 'eic=1;eic=16;eic=64');
  const [cacheState, setCacheState] = useState<CacheState>('cold');
  const [rounds, setRounds] = useState(5);
  const [tableMb, setTableMb] = useState(256);
  const [confirm, setConfirm] = useState('');
  const embedded = info.data?.embedded === true;
  const parsed = parseVariants(variants);
  const formError = typeof parsed === 'string' ? parsed : parsed.length === 0 ? 'add at least one variant' : null;
  const running = experiment.data?.status === 'running';

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (typeof parsed === 'string') return;
    start.mutate(
      { tableMb, cacheState, rounds, variants: parsed, ...(embedded ? {} : { confirmTarget: confirm }) },
      { onSuccess: ({ id }) => setSelected(id) },
    );
  };

  return (
    <Panel
      title="Scan lab: the cold-scan drill"
      testId="panel-lab"
      source={`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) per run, pg_stat_get_backend_io per run, fincore for the OS cache · on ${target?.name ?? '…'}`}
    >
      {info.data?.unavailable !== undefined ? (
        <EmptyState>{info.data.unavailable}</EmptyState>
      ) : (
        <form className="lab-form" onSubmit={submit}>
          <label>
            drill
            <select value={variants} onChange={(e) => setVariants(e.target.value)} aria-label="preset">
              {LAB_PRESETS.filter((preset) => embedded || !preset.embeddedOnly).map((preset) => (
                <option key={preset.variants} value={preset.variants}>
                  {preset.label}
                </option>
              ))}
              {LAB_PRESETS.some((preset) => preset.variants === variants) ? null : (
                <option value={variants}>custom</option>
              )}
            </select>
          </label>
          <label>
            variants
            <input
              value={variants}
              onChange={(e) => setVariants(e.target.value)}
              aria-label="variants"
              title="eic=N, mic=N, icl=N (blocks), io_method=sync|worker|io_uring, io_workers=N; ';' between variants, ',' within one"
            />
          </label>
          <label>
            cache
            <select
              value={cacheState}
              onChange={(e) => setCacheState(e.target.value as CacheState)}
              aria-label="cache state"
            >
              {CACHE_STATES.map((state) => (
                <option key={state} value={state}>
                  {CACHE_LABELS[state]}
                </option>
              ))}
            </select>
          </label>
          <label>
            rounds
            <input
              type="number"
              min={1}
              max={20}
              value={rounds}
              onChange={(e) => setRounds(Number(e.target.value))}
              aria-label="rounds"
            />
          </label>
          <label>
            table MB
            <input
              type="number"
              min={16}
              max={4096}
              value={tableMb}
              onChange={(e) => setTableMb(Number(e.target.value))}
              aria-label="table size in MB"
            />
          </label>
          {embedded ? null : (
            <label className="lab-confirm">
              type the server&apos;s name to confirm: <code>{target?.name}</code>
              <input value={confirm} onChange={(e) => setConfirm(e.target.value)} aria-label="confirm server name" />
            </label>
          )}
          <button type="submit" disabled={formError !== null || start.isPending || running}>
            {running ? 'running …' : 'run experiment'}
          </button>
          <span className="lab-hint">
            Rounds run interleaved (A B C A B C …)
            {embedded ? '; io_method and io_workers variants restart the embedded server' : ''}.
          </span>
          {formError !== null ? <div className="form-error">{formError}</div> : null}
          {start.isError ? (
            <div className="form-error" role="alert">
              {start.error.message}
            </div>
          ) : null}
        </form>
      )}
      {experiment.data ? (
        <div className="lab-current" data-testid="lab-current">
          <h3>
            {experiment.data.id}: {experiment.data.status}
            {experiment.data.status === 'running'
              ? ` · run ${experiment.data.runs.length + 1} of ${experiment.data.plannedRuns}`
              : ''}{' '}
            {experiment.data.status === 'running' ? (
              <a href="#live" className="watch-live">
                watch it live ↑
              </a>
            ) : null}
          </h3>
          {experiment.data.error ? <div className="form-error">{experiment.data.error}</div> : null}
          {experiment.data.summary.length > 0 ? (
            <ResultTable experiment={experiment.data} />
          ) : (
            <EmptyState>first run in progress …</EmptyState>
          )}
        </div>
      ) : null}
      {(list.data ?? []).length > 0 ? (
        <div className="lab-history">
          <h3>experiments</h3>
          <ul>
            {(list.data ?? []).map((item) => (
              <li key={item.id}>
                <button type="button" className="link" onClick={() => setSelected(item.id)}>
                  {new Date(item.createdAt).toLocaleString()} · {item.cacheState} · {item.variants.join(' / ')} ·{' '}
                  {item.rounds} rounds · {item.status}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Panel>
  );
});
