import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { MAX_BASELINE_NAME_LENGTH, type Baseline, type CompareSideRef, type OpenedRecording } from '@aioscope/spec';
import { baselineExportUrl, deleteBaseline, markBaseline, openBaseline, useBaselines } from '../api/baselines.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { compareHref } from '../compare/compareLink.ts';
import { formatBytes, formatClockTime, formatDuration } from '../format.ts';
import { describeRange } from './timeView.ts';
import './baselines.css';
import { FormError } from '../app/FormError.tsx';

/** A kept range with its day even when it is one day: a baseline outlives retention, so is rarely today's. */
function datedRange(from: number, to: number): string {
  const sameDay = new Date(from).toDateString() === new Date(to).toDateString();
  return sameDay ? `${new Date(from).toLocaleDateString()} ${describeRange(from, to)}` : describeRange(from, to);
}

/** Escape closes a panel of the time bar, wherever the focus is inside it. */
function closeOnEscape(onClose: () => void) {
  return (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    onClose();
  };
}

export interface MarkBaselineProps {
  targetId: string;
  range: { from: number; to: number };
  onMarked: (baseline: Baseline) => void;
  onClose: () => void;
}

/** "Mark as baseline…": a name for the shown range, kept in the history store until removed. */
export function MarkBaseline({ targetId, range, onMarked, onClose }: MarkBaselineProps): ReactNode {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const queryClient = useQueryClient();
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (name.trim() === '') return setError('Give the baseline a name, e.g. "before the upgrade".');
    setSaving(true);
    setError(null);
    void markBaseline(targetId, { name: name.trim(), from: Math.round(range.from), to: Math.round(range.to) })
      .then((baseline) => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.baselines() });
        onMarked(baseline);
      })
      .catch((refused: unknown) => setError((refused as Error).message))
      .finally(() => setSaving(false));
  };
  return (
    <form
      className="time-row baseline-mark"
      onSubmit={submit}
      onKeyDown={closeOnEscape(onClose)}
      aria-label="Mark as baseline"
    >
      <span className="time-range">
        Keep {describeRange(range.from, range.to)} ({formatDuration(range.to - range.from, 'span')}) as
      </span>
      <label>
        <span className="visually-hidden">baseline name</span>
        <input
          className="toolbar-control baseline-name"
          autoFocus
          value={name}
          maxLength={MAX_BASELINE_NAME_LENGTH}
          placeholder="before the upgrade"
          onChange={(event) => {
            setName(event.target.value);
            // The refusal was of the name as it was: a new name is not refused yet.
            setError(null);
          }}
          data-testid="baseline-name"
        />
      </label>
      <button type="submit" className="time-button primary" disabled={saving} data-testid="baseline-save">
        {saving ? 'Keeping…' : 'Keep baseline'}
      </button>
      <button type="button" className="time-button" onClick={onClose}>
        Cancel
      </button>
      <span className="caveat">Kept beyond retention, until removed; exportable as a recording file.</span>
      <FormError error={error} className="baseline-error" />
    </form>
  );
}

export interface BaselineListProps {
  /** What "Compare with this" compares a baseline with: the range shown now, or null (none). */
  current: CompareSideRef | null;
  onOpened: (opened: OpenedRecording) => void;
  /** Where "Compare with this" goes (the browser's location by default; a test records it). */
  onNavigate?: (href: string) => void;
  onClose: () => void;
  /** The one just marked, shown as such. */
  marked?: string | null;
}

/** The kept baselines of every target: open, export, delete (confirmed), compare with the shown range. */
export function BaselineList({ current, onOpened, onNavigate, onClose, marked = null }: BaselineListProps): ReactNode {
  const list = useBaselines(true);
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const navigate = onNavigate ?? ((href: string) => window.location.assign(href));
  /** Opens it as a recording target, which the target list then names. */
  const open = async (id: string): Promise<OpenedRecording> => {
    const opened = await openBaseline(id);
    void queryClient.invalidateQueries({ queryKey: queryKeys.targets(), exact: true });
    return opened;
  };
  const act = (id: string, work: () => Promise<void>): void => {
    setBusy(id);
    setError(null);
    void work()
      .catch((refused: unknown) => setError((refused as Error).message))
      .finally(() => setBusy(null));
  };
  const baselines = list.data?.baselines ?? [];
  // The form that had the focus is gone once a baseline is kept, and so is a deleted row: the focus
  // goes to the new row, or to the list, not to the page's top for the keyboard to start over from.
  const listRef = useRef<HTMLElement>(null);
  const markedRow = useRef<HTMLLIElement>(null);
  const markedListed = baselines.some((baseline) => baseline.id === marked);
  useEffect(() => {
    if (markedListed) markedRow.current?.focus();
  }, [markedListed]);
  return (
    <section
      ref={listRef}
      tabIndex={-1}
      className="baseline-list"
      aria-label="Baselines"
      onKeyDown={closeOnEscape(onClose)}
      data-testid="baseline-list"
    >
      <div className="time-row">
        <strong>Baselines</strong>
        <span className="caveat">Marked ranges, kept in aioscope's history store beyond retention.</span>
        <button type="button" className="time-button" onClick={onClose}>
          Close
        </button>
      </div>
      {list.error !== null ? <div className="status-bad">Cannot list baselines: {list.error.message}</div> : null}
      {list.data?.unavailable !== undefined ? <div className="caveat">{list.data.unavailable}</div> : null}
      {list.data !== undefined && baselines.length === 0 && list.data.unavailable === undefined ? (
        <div className="caveat">None yet: show a range and choose "Mark as baseline…".</div>
      ) : null}
      {baselines.length > 0 ? (
        <ul className="baseline-rows">
          {baselines.map((baseline) => (
            <li
              key={baseline.id}
              className="baseline-row"
              data-testid="baseline-row"
              aria-current={baseline.id === marked}
              ref={baseline.id === marked ? markedRow : undefined}
              tabIndex={baseline.id === marked ? -1 : undefined}
            >
              <div className="baseline-about">
                <span className="baseline-title">{baseline.name}</span>
                <span className="baseline-meta">
                  {baseline.targetName} · {datedRange(baseline.from, baseline.to)} (
                  {formatDuration(baseline.to - baseline.from, 'span')}) · {formatBytes(baseline.bytes)} · marked{' '}
                  {baseline.createdBy === null ? '' : `by ${baseline.createdBy} `}
                  {new Date(baseline.createdAt).toLocaleDateString()} {formatClockTime(baseline.createdAt)}
                </span>
              </div>
              <div className="time-group" role="group" aria-label={`Baseline ${baseline.name}`}>
                {confirming === baseline.id ? (
                  <ConfirmDelete
                    name={baseline.name}
                    onKeep={() => setConfirming(null)}
                    onDelete={() =>
                      act(baseline.id, async () => {
                        await deleteBaseline(baseline.id);
                        setConfirming(null);
                        listRef.current?.focus();
                        await queryClient.invalidateQueries({ queryKey: queryKeys.baselines() });
                      })
                    }
                  />
                ) : (
                  <>
                    <button
                      type="button"
                      className="time-button"
                      disabled={busy !== null}
                      onClick={() => act(baseline.id, async () => onOpened(await open(baseline.id)))}
                    >
                      {busy === baseline.id ? 'Opening…' : 'Open'}
                    </button>
                    {current !== null ? (
                      <button
                        type="button"
                        className="time-button"
                        disabled={busy !== null}
                        onClick={() =>
                          act(baseline.id, async () => {
                            const opened = await open(baseline.id);
                            navigate(
                              compareHref({
                                a: current,
                                b: { targetId: opened.targetId, from: opened.from, to: opened.to },
                              }),
                            );
                          })
                        }
                      >
                        Compare with this
                      </button>
                    ) : null}
                    <a className="time-button" href={baselineExportUrl(baseline.id)} download>
                      Export
                    </a>
                    <button type="button" className="time-button" onClick={() => setConfirming(baseline.id)}>
                      Delete…
                    </button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {error !== null ? (
        <div className="status-bad" role="alert">
          {error}
        </div>
      ) : null}
    </section>
  );
}

function ConfirmDelete({
  name,
  onKeep,
  onDelete,
}: {
  name: string;
  onKeep: () => void;
  onDelete: () => void;
}): ReactNode {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <>
      <span className="status-warn">Delete “{name}” for good?</span>
      <button ref={confirm} type="button" className="time-button danger" onClick={onDelete}>
        Delete
      </button>
      <button type="button" className="time-button" onClick={onKeep}>
        Keep
      </button>
    </>
  );
}
