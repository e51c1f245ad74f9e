import { memo, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { DIRECT_IO_EXPLANATION, LAB_PRESETS, checkLabForm, plural } from '@aioscope/core';
import {
  CACHE_STATES,
  LAB_MAX_ROUNDS,
  LAB_MAX_TABLE_MB,
  type CacheState,
  type LabExperiment,
  type TargetSummary,
} from '@aioscope/spec';
import {
  useCancelExperiment,
  useLabExperiment,
  useLabExperiments,
  useLabInfo,
  useStartExperiment,
} from '../api/lab.ts';
import { useOperatorOnly } from '../api/identity.ts';
import { formatBytes, formatNumber, formatPercent } from '../format.ts';
import { MedianChart } from '../charts/MedianChart.tsx';
import { useStartRace } from '../race/raceApi.ts';
import { useRaceLocation } from '../race/raceLocation.ts';
import { RaceView } from '../race/RaceView.tsx';
import { ExplainIoFigures } from './ExplainIoFigures.tsx';
import { EmptyState, Explain, Panel } from './Panel.tsx';
import { FlagText } from './FlagText.tsx';
import './LabPanel.css';

const CACHE_LABELS: Record<CacheState, string> = {
  cold: 'cold (evict shared buffers and the OS page cache)',
  'shared-buffers-cold': 'shared buffers cold, OS cache warm',
  warm: 'warm (no eviction)',
};

const formatMs = (ms: number): string => `${formatNumber(ms, 1)} ms`;

/** Median per variant as a bar, with the min–max range drawn over it: the noise next to the signal. */
function Medians({ experiment }: { experiment: LabExperiment }): ReactNode {
  const { summary } = experiment;
  const rows = useMemo(
    () => summary.map((row) => ({ label: row.variant, median: row.medianMs, min: row.minMs, max: row.maxMs })),
    [summary],
  );
  const scale = Math.max(...summary.map((row) => row.maxMs), 1);
  return (
    <div className="lab-chart">
      <MedianChart rows={rows} formatValue={formatMs} ariaLabel="median execution time per variant, with min–max" />
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
            <th className="num">
              runs <Explain label="runs">Runs finished for this variant.</Explain>
            </th>
            <th className="num">
              median <Explain label="median">Median EXPLAIN ANALYZE execution time.</Explain>
            </th>
            <th className="num">
              min–max <Explain label="min–max">Fastest and slowest run: the noise.</Explain>
            </th>
            <th className="num">
              vs {baseline} <Explain label={`vs ${baseline}`}>Median / median of {baseline}.</Explain>
            </th>
            <th className="num">
              bytes / read{' '}
              <Explain label="bytes / read">
                Median of Δread_bytes / Δreads of the run&apos;s own backend (pg_stat_get_backend_io).
              </Explain>
            </th>
            <th className="num">
              I/O wait{' '}
              <Explain label="I/O wait">
                Median EXPLAIN I/O read time (track_io_timing): time the backend waited for reads.
              </Explain>
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
      <Medians experiment={experiment} />
      {experiment.notes.length > 0 ? (
        <ul className="lab-notes">
          {experiment.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      <ExplainIoFigures experiment={experiment} />
      <details className="lab-runs">
        <summary>every run ({experiment.runs.length})</summary>
        <table>
          <thead>
            <tr>
              <th>round</th>
              <th>variant</th>
              <th>io_method</th>
              <th>
                OS cache before{' '}
                <Explain label="OS cache before">
                  Share of the table in the OS page cache just before the run (fincore).
                </Explain>
              </th>
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

/** Where the experiment shown stays across reloads: the newest one is shown when none was chosen. */
const SELECTED_KEY = 'aioscope.lab.selected';

function rememberedSelection(): string | null {
  try {
    return sessionStorage.getItem(SELECTED_KEY);
  } catch {
    return null; // storage off (private mode, a sandbox): the newest experiment is shown instead
  }
}

function rememberSelection(id: string): void {
  try {
    sessionStorage.setItem(SELECTED_KEY, id);
  } catch {
    // as above
  }
}

/** The experiment shown: its status, Cancel while it runs, then its results. */
function CurrentExperiment({ experiment }: { experiment: LabExperiment }): ReactNode {
  const cancel = useCancelExperiment();
  const operatorOnly = useOperatorOnly();
  const heading = useRef<HTMLHeadingElement>(null);
  const running = experiment.status === 'running';
  const cancelExperiment = (): void => {
    cancel.mutate(experiment.id, {
      // The Cancel button goes away with the run: focus moves to the status it changed, not to the page's top.
      onSuccess: () => heading.current?.focus(),
    });
  };
  return (
    <div className="lab-current" data-testid="lab-current">
      <h3 ref={heading} tabIndex={-1}>
        <span aria-live="polite">
          {experiment.id}: {experiment.status}
          {experiment.definition.directIo === true ? ' · direct I/O' : ''}
          {running ? ` · run ${experiment.runs.length + 1} of ${experiment.plannedRuns}` : ''}
        </span>{' '}
        {running ? (
          <a href="#live" className="watch-live">
            watch it live ↑
          </a>
        ) : null}
      </h3>
      {running ? (
        <button
          type="button"
          className="lab-cancel"
          onClick={cancelExperiment}
          disabled={cancel.isPending || operatorOnly !== null}
          title={operatorOnly ?? undefined}
        >
          {cancel.isPending ? 'cancelling …' : 'cancel experiment'}
        </button>
      ) : null}
      {cancel.isError ? (
        <div className="form-error" role="alert">
          {cancel.error.message}
        </div>
      ) : null}
      {experiment.status === 'failed' && experiment.error !== null ? (
        <div className="form-error">{experiment.error}</div>
      ) : null}
      {experiment.status === 'cancelled' ? (
        <p className="lab-cancelled">
          {experiment.cancelReason ?? 'cancelled'} · {plural(experiment.runs.length, 'run')} of {experiment.plannedRuns}{' '}
          finished
        </p>
      ) : null}
      {experiment.summary.length > 0 ? (
        <ResultTable experiment={experiment} />
      ) : running ? (
        <EmptyState>first run in progress …</EmptyState>
      ) : null}
    </div>
  );
}

/** Memoized: it follows its own queries, not the 10 Hz page renders. */
export const LabPanel = memo(function LabPanel({ target }: { target: TargetSummary | undefined }): ReactNode {
  const info = useLabInfo();
  const list = useLabExperiments();
  const start = useStartExperiment();
  const [chosen, setChosen] = useState<string | null>(rememberedSelection);
  const newest = list.data?.[0]?.id ?? null;
  // A remembered id that is no longer listed (its file was removed) gives way to the newest.
  const selected =
    chosen !== null && (list.data === undefined || list.data.some((item) => item.id === chosen)) ? chosen : newest;
  const experiment = useLabExperiment(selected);
  const [variants, setVariants] = useState(LAB_PRESETS[0]?.variants ?? 'eic=1;eic=16;eic=64');
  const [cacheState, setCacheState] = useState<CacheState>('cold');
  // As typed: a number field being edited may be blank, and blank is not 0.
  const [rounds, setRounds] = useState('5');
  const [tableMb, setTableMb] = useState('256');
  const [directIo, setDirectIo] = useState(false);
  const [confirm, setConfirm] = useState('');
  // From submit until the server names the new experiment, the previous one is not shown as if it were it.
  const [starting, setStarting] = useState(false);
  // The race shown under the lab: started here ("Show read combining", "run as race") or picked;
  // in the URL (#race-<id>), so a reload or a link shows it again.
  const raceLocation = useRaceLocation();
  const raceId = raceLocation.race;
  const setRaceId = raceLocation.show;
  const startRace = useStartRace();
  // A viewer sees what the lab would do, with its starts disabled and the reason said once, above them.
  const operatorOnly = useOperatorOnly();
  const operatorOnlyId = useId();
  const variantsHintId = useId();
  const directIoHintId = useId();
  const embedded = info.data?.embedded === true;
  const checked = checkLabForm({
    variants,
    cacheState,
    rounds,
    tableMb,
    // Offered on the embedded server only: the only server the lab restarts.
    directIo: embedded && directIo,
    confirmTarget: embedded ? null : confirm,
  });
  const formErrors = 'errors' in checked ? checked.errors : [];
  const running = experiment.data?.status === 'running' || (info.data?.active ?? null) !== null;

  const choose = (id: string): void => {
    setChosen(id);
    rememberSelection(id);
  };
  // The server's answer belongs to what was submitted: once the form changes it is out of date.
  const edit = (apply: () => void): void => {
    start.reset();
    apply();
  };

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!('input' in checked)) return;
    setStarting(true);
    start.mutate(checked.input, { onSuccess: ({ id }) => choose(id), onSettled: () => setStarting(false) });
  };

  const race = (body: Parameters<typeof startRace.mutate>[0]): void => {
    start.reset();
    startRace.mutate(body, {
      onSuccess: ({ id }) => {
        choose(id);
        setRaceId(id);
      },
    });
  };

  // The lab works on the first server only: another server's dashboard names it, and offers nothing
  // that would run elsewhere than the page suggests.
  const labTarget = info.data?.target;
  if (labTarget !== undefined && target !== undefined && labTarget.id !== target.id) {
    return (
      <Panel title="Scan lab: the cold-scan drill" testId="panel-lab" source={`runs on ${labTarget.name} only`}>
        <EmptyState>
          The scan lab works on one server of this aioscope, the first one:{' '}
          <a href={`/t/${labTarget.id}`}>{labTarget.name}</a>. Its experiments run there, not on {target.name}.
        </EmptyState>
      </Panel>
    );
  }
  return (
    <Panel
      title="Scan lab: the cold-scan drill"
      testId="panel-lab"
      source={`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) per run, pg_stat_get_backend_io per run, fincore for the OS cache · on ${target?.name ?? '…'}`}
    >
      {operatorOnly !== null && info.data?.unavailable === undefined ? (
        <p className="lab-operator-only" id={operatorOnlyId} data-testid="lab-operator-only">
          <FlagText text={operatorOnly} />
        </p>
      ) : null}
      {embedded && info.data?.unavailable === undefined ? (
        <p className="race-start">
          <button
            type="button"
            onClick={() => race({ preset: 'read-combining' })}
            disabled={startRace.isPending || running || operatorOnly !== null}
            aria-describedby={operatorOnly === null ? undefined : operatorOnlyId}
          >
            Show read combining
          </button>{' '}
          races io_combine_limit 1 vs 16 blocks on a cold 256 MB table, 3 rounds, each run captured at 100 Hz.
        </p>
      ) : null}
      {startRace.isError ? (
        <div className="form-error" role="alert">
          {startRace.error.message}
        </div>
      ) : null}
      {info.data?.unavailable !== undefined ? (
        <EmptyState>
          <FlagText text={info.data.unavailable} />
        </EmptyState>
      ) : (
        <form className="lab-form" onSubmit={submit} noValidate>
          <label>
            drill
            {/* Named as its visible label says (it was announced as "preset"). */}
            <select value={variants} onChange={(e) => edit(() => setVariants(e.target.value))} aria-label="drill">
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
              onChange={(e) => edit(() => setVariants(e.target.value))}
              aria-label="variants"
              aria-invalid={formErrors.length > 0}
              aria-describedby={variantsHintId}
            />
          </label>
          <label>
            cache
            <select
              value={cacheState}
              onChange={(e) => edit(() => setCacheState(e.target.value as CacheState))}
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
              inputMode="numeric"
              min={1}
              max={LAB_MAX_ROUNDS}
              value={rounds}
              onChange={(e) => edit(() => setRounds(e.target.value))}
              aria-label="rounds"
            />
          </label>
          <label>
            table size in MB
            <input
              type="number"
              inputMode="numeric"
              min={16}
              max={LAB_MAX_TABLE_MB}
              value={tableMb}
              onChange={(e) => edit(() => setTableMb(e.target.value))}
              aria-label="table size in MB"
            />
          </label>
          {embedded ? (
            <label className="lab-direct-io">
              <span>
                <input
                  type="checkbox"
                  checked={directIo}
                  onChange={(e) => edit(() => setDirectIo(e.target.checked))}
                  aria-describedby={directIoHintId}
                />{' '}
                direct I/O (developer setting)
              </span>
              <span className="lab-hint" id={directIoHintId}>
                {DIRECT_IO_EXPLANATION}
              </span>
            </label>
          ) : (
            <label className="lab-confirm">
              type the server&apos;s name to confirm: <code>{target?.name}</code>
              <input
                value={confirm}
                onChange={(e) => edit(() => setConfirm(e.target.value))}
                aria-label="type the server's name to confirm"
              />
            </label>
          )}
          <button
            type="submit"
            disabled={formErrors.length > 0 || start.isPending || running || operatorOnly !== null}
            aria-describedby={operatorOnly === null ? undefined : operatorOnlyId}
          >
            {running ? 'running …' : 'run experiment'}
          </button>
          <button
            type="button"
            disabled={!('input' in checked) || startRace.isPending || running || operatorOnly !== null}
            aria-describedby={operatorOnly === null ? undefined : operatorOnlyId}
            onClick={() => ('input' in checked ? race(checked.input) : undefined)}
          >
            run as race
          </button>
          <span className="lab-hint" id={variantsHintId}>
            Variants: eic=N, mic=N, icl=N (blocks), io_method=sync|worker|io_uring, io_workers=N; &apos;;&apos; between
            variants, &apos;,&apos; within one.
          </span>
          <span className="lab-hint">
            Rounds run interleaved (A B C A B C …)
            {embedded ? '; io_method and io_workers variants restart the embedded server' : ''}.
          </span>
          {/* One place for what is wrong now: the form's own problems, else the server's answer to the last submit. */}
          <div className="form-error" role="alert" data-testid="lab-form-error">
            {formErrors.length > 0
              ? formErrors.map((error) => <div key={error}>{error}</div>)
              : start.isError
                ? start.error.message
                : null}
          </div>
        </form>
      )}
      {experiment.data && !starting ? <CurrentExperiment experiment={experiment.data} /> : null}
      {experiment.data && !starting && raceId !== experiment.data.id ? (
        <button type="button" className="link" onClick={() => setRaceId(experiment.data.id)}>
          race view of {experiment.data.id}
        </button>
      ) : null}
      {raceId !== null ? (
        <RaceView raceId={raceId} onClose={() => setRaceId(null)} reveal={raceLocation.fromLoad} />
      ) : null}
      {(list.data ?? []).length > 0 ? (
        <div className="lab-experiments">
          <h3>experiments</h3>
          <ul>
            {(list.data ?? []).map((item) => (
              <li key={item.id}>
                <button
                  type="button"
                  className="link"
                  onClick={() => choose(item.id)}
                  aria-current={item.id === selected ? 'true' : undefined}
                >
                  {new Date(item.createdAt).toLocaleString()} · {item.cacheState}
                  {item.directIo ? ' · direct I/O' : ''} · {item.variants.join(' / ')} · {plural(item.rounds, 'round')}{' '}
                  · {item.status}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Panel>
  );
});
