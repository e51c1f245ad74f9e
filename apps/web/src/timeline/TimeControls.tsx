import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { HistoryExtent, OpenedRecording } from '@aioscope/spec';
import { exportUrls } from '../api/history.ts';
import { RangeFields, readRangeFields, toLocalInput } from '../app/RangeFields.tsx';
import { compareHref, sameLengthBefore } from '../compare/compareLink.ts';
import { formatBytes, formatDuration } from '../format.ts';
import { Explain } from '../panels/Panel.tsx';
import { BaselineList, MarkBaseline } from './Baselines.tsx';
import { momentKeyMove } from './momentKeys.ts';
import { FormError } from '../app/FormError.tsx';
import {
  RANGE_PRESETS,
  REPLAY_SPEEDS,
  describeRange,
  rangeEndingAt,
  readsRawFrames,
  type ReplaySpeed,
  type TimeView,
} from './timeView.ts';

export interface TimeControlsProps {
  view: TimeView;
  targetId: string | null;
  /** false for a recording file: it has no live edge. */
  hasLive: boolean;
  extent: HistoryExtent | undefined;
  extentError: string | null;
  /** Why the target is not sampled at all (a refused server), else null: nothing live, nothing recorded. */
  notSampled: string | null;
  /** The server's "now", for ranges that end now. */
  serverNow: number;
  /** The moment the instant panels show (in a replay: the playhead). */
  at: number;
  playing: boolean;
  onView: (view: TimeView) => void;
  onPause: () => void;
  onPlay: (playing: boolean) => void;
  onStep: (direction: -1 | 1) => void;
  onMoment: (at: number) => void;
  onOpenFile: (file: File) => void;
  /** A baseline opened from the list: shown as an opened recording file is. */
  onOpenBaseline: (opened: OpenedRecording) => void;
}

const SPEED_LABELS: Record<ReplaySpeed, string> = { 0.1: '1/10×', 0.25: '1/4×', 1: '1×', 4: '4×', 16: '16×' };

function recordingText(
  extent: HistoryExtent | undefined,
  error: string | null,
  notSampled: string | null,
): { text: string; tone: string } {
  if (error !== null) return { text: `history unavailable: ${error}`, tone: 'muted' };
  if (extent === undefined) return { text: 'history: …', tone: 'muted' };
  const kept =
    extent.raw === null
      ? 'nothing kept yet'
      : `${formatDuration(extent.raw.to - extent.raw.from, 'span')} of samples kept`;
  const size = extent.bytesOnDisk > 0 ? `, ${formatBytes(extent.bytesOnDisk)} on disk` : '';
  // The recorder is on, but a server that is never sampled gives it nothing to keep.
  if (notSampled !== null) return { text: `not recording: the server is not sampled · ${kept}${size}`, tone: 'muted' };
  if (extent.recording.state === 'recording') return { text: `recording · ${kept}${size}`, tone: 'good' };
  const why = extent.recording.reason === null ? '' : `: ${extent.recording.reason}`;
  return { text: `recording ${extent.recording.state}${why} · ${kept}${size}`, tone: 'warn' };
}

/**
 * The time bar: live or paused, ranges, a custom from–to, replay (play, speed, frame steps, the
 * moment slider), export and opening a recording file. Every control is a native button or input,
 * so the keyboard reaches all of it.
 */
export function TimeControls(props: TimeControlsProps): ReactNode {
  const { view, targetId, hasLive, extent, serverNow, playing } = props;
  const [customOpen, setCustomOpen] = useState(false);
  const [baselines, setBaselines] = useState<{ shown: 'mark' | 'list' | null; marked: string | null }>({
    shown: null,
    marked: null,
  });
  const showBaselines = (shown: 'mark' | 'list' | null): void => setBaselines({ shown, marked: null });
  const markButton = useRef<HTMLButtonElement>(null);
  const listButton = useRef<HTMLButtonElement>(null);
  /** Closing a baseline panel puts the focus back on the button that opened it, not on the page. */
  const closeBaselines = (opener: typeof markButton): void => {
    showBaselines(null);
    opener.current?.focus();
  };
  const recording = recordingText(extent, props.extentError, props.notSampled);
  const live = view.mode === 'live';
  const sampled = props.notSampled === null;
  const fileInputId = useId();
  return (
    <section className="time-controls" aria-label="Time" data-testid="time-controls">
      <div className="time-row">
        <div className="time-group" role="group" aria-label="Live or paused">
          {hasLive ? (
            live ? (
              <button type="button" className="time-button" onClick={props.onPause} data-testid="pause">
                Pause
              </button>
            ) : (
              <button
                type="button"
                className="time-button primary"
                onClick={() => props.onView({ mode: 'live' })}
                data-testid="back-to-live"
              >
                Back to live
              </button>
            )
          ) : null}
          <span
            className={`time-state time-${live ? (sampled ? 'live' : 'unsampled') : 'past'}`}
            data-testid="time-state"
          >
            {live
              ? sampled
                ? 'live'
                : 'live: not sampled'
              : view.speed !== null
                ? playing
                  ? 'replaying'
                  : 'replay paused'
                : 'paused on a range'}
          </span>
        </div>
        <div className="time-group" role="group" aria-label="Show a past range">
          {RANGE_PRESETS.map((preset) => (
            <button
              key={preset.label}
              type="button"
              className="time-button"
              aria-pressed={view.mode === 'range' && view.to - view.from === preset.ms}
              onClick={() => props.onView(rangeEndingAt(serverNow, preset.ms))}
            >
              {preset.label}
            </button>
          ))}
          <button
            type="button"
            className="time-button"
            aria-expanded={customOpen}
            onClick={() => setCustomOpen((open) => !open)}
          >
            custom…
          </button>
        </div>
        <div className={`time-recording status-${recording.tone}`} data-testid="recording-state">
          {recording.text}{' '}
          <Explain label="history">
            aioscope records every sample of every target into a store under its data folder: raw samples for{' '}
            {extent ? formatDuration(extent.retention.rawMs, 'span') : '24 h'}, 1 s roll-ups (count, mean, max) for{' '}
            {extent ? formatDuration(extent.retention.rollupMs, 'span') : '30 days'}, at most{' '}
            {extent ? formatBytes(extent.retention.maxBytes) : '1 GB'}. Ranges up to 15 min draw every sample; longer
            ones draw roll-ups. --no-record turns recording off.
          </Explain>
        </div>
        <div className="time-group time-files" role="group" aria-label="Share">
          {view.mode === 'range' && targetId !== null ? (
            <>
              <a
                className="time-button"
                href={exportUrls(targetId, view.from, view.to).recording}
                download
                data-testid="export-recording"
              >
                Export recording
              </a>
              <a className="time-button" href={exportUrls(targetId, view.from, view.to).csv} download>
                CSV
              </a>
              <a
                className="time-button"
                href={compareHref({
                  a: { targetId, from: view.from, to: view.to },
                  b: sameLengthBefore({ targetId, from: view.from, to: view.to }),
                })}
                data-testid="open-compare"
              >
                Compare…
              </a>
              <button
                ref={markButton}
                type="button"
                className="time-button"
                aria-expanded={baselines.shown === 'mark'}
                onClick={() => showBaselines(baselines.shown === 'mark' ? null : 'mark')}
                data-testid="mark-baseline"
              >
                Mark as baseline…
              </button>
            </>
          ) : null}
          <button
            ref={listButton}
            type="button"
            className="time-button"
            aria-expanded={baselines.shown === 'list'}
            onClick={() => showBaselines(baselines.shown === 'list' ? null : 'list')}
            data-testid="show-baselines"
          >
            Baselines
          </button>
          <label className="time-button" htmlFor={fileInputId}>
            Open recording…
          </label>
          <input
            id={fileInputId}
            className="visually-hidden"
            type="file"
            accept=".gz,application/gzip"
            data-testid="open-recording"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file !== undefined) props.onOpenFile(file);
              event.target.value = '';
            }}
          />
        </div>
      </div>
      {customOpen ? (
        <CustomRange
          initial={view.mode === 'range' ? view : { from: serverNow - 5 * 60_000, to: serverNow }}
          onApply={(next) => {
            setCustomOpen(false);
            props.onView(next);
          }}
        />
      ) : null}
      {baselines.shown === 'mark' && view.mode === 'range' && targetId !== null ? (
        <MarkBaseline
          targetId={targetId}
          range={view}
          onMarked={(marked) => setBaselines({ shown: 'list', marked: marked.id })}
          onClose={() => closeBaselines(markButton)}
        />
      ) : null}
      {baselines.shown === 'list' ? (
        <BaselineList
          current={view.mode === 'range' && targetId !== null ? { targetId, from: view.from, to: view.to } : null}
          marked={baselines.marked}
          onOpened={(opened) => {
            showBaselines(null);
            props.onOpenBaseline(opened);
          }}
          onClose={() => closeBaselines(listButton)}
        />
      ) : null}
      {view.mode === 'range' ? <ReplayRow {...props} view={view} /> : null}
    </section>
  );
}

function ReplayRow(props: TimeControlsProps & { view: Extract<TimeView, { mode: 'range' }> }): ReactNode {
  const { view, at, playing } = props;
  const raw = readsRawFrames(view);
  const keysHintId = useId();
  return (
    <div className="time-row replay-row">
      <span className="time-range" data-testid="time-range">
        {describeRange(view.from, view.to)} ({formatDuration(view.to - view.from, 'span')}) ·{' '}
        {raw ? 'every sample' : '1 s roll-ups: mean and max per step'}
      </span>
      {raw ? (
        <>
          <div className="time-group" role="group" aria-label="Replay">
            <button
              type="button"
              className="time-button primary"
              data-testid="replay-play"
              onClick={() => {
                if (view.speed === null) props.onView({ ...view, speed: 1, at: at >= view.to ? view.from : at });
                props.onPlay(!playing);
              }}
            >
              {playing ? 'Pause replay' : view.speed === null ? 'Replay' : 'Play'}
            </button>
            <button type="button" className="time-button" aria-label="previous sample" onClick={() => props.onStep(-1)}>
              ◀ sample
            </button>
            <button type="button" className="time-button" aria-label="next sample" onClick={() => props.onStep(1)}>
              sample ▶
            </button>
            <label className="time-speed">
              speed{' '}
              <select
                className="toolbar-control"
                value={view.speed ?? 1}
                data-testid="replay-speed"
                onChange={(event) => props.onView({ ...view, speed: Number(event.target.value) as ReplaySpeed })}
              >
                {REPLAY_SPEEDS.map((speed) => (
                  <option key={speed} value={speed}>
                    {SPEED_LABELS[speed]}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <label className="time-moment">
            <span className="visually-hidden">moment shown</span>
            <input
              type="range"
              min={view.from}
              max={view.to}
              step={1}
              value={at}
              data-testid="moment-slider"
              aria-valuetext={new Date(at).toLocaleTimeString([], { hour12: false })}
              aria-describedby={keysHintId}
              onChange={(event) => props.onMoment(Number(event.target.value))}
              onKeyDown={(event) => {
                const move = momentKeyMove(event.key);
                if (move === null || event.altKey || event.ctrlKey || event.metaKey) return;
                event.preventDefault();
                if (move.by === 'sample') props.onStep(move.direction);
                else props.onMoment(at + move.ms);
              }}
            />
            <span id={keysHintId} className="visually-hidden">
              Arrow keys: one sample. Page Up and Page Down: one second.
            </span>
          </label>
          <span className="time-at" data-testid="moment">
            {new Date(at).toLocaleTimeString([], { hour12: false })}.{String(Math.floor(at % 1000)).padStart(3, '0')}
          </span>
        </>
      ) : (
        <span className="caveat">
          Choose 15 min or less (drag on a chart) to see every sample, the scan map and replay.
        </span>
      )}
    </div>
  );
}

function CustomRange({
  initial,
  onApply,
}: {
  initial: { from: number; to: number };
  onApply: (view: TimeView) => void;
}): ReactNode {
  const [from, setFrom] = useState(toLocalInput(initial.from));
  const [to, setTo] = useState(toLocalInput(initial.to));
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const range = readRangeFields(from, to);
    if ('error' in range) return setError(range.error);
    setError(null);
    onApply({ mode: 'range', from: range.from, to: range.to, at: range.to, speed: null });
  };
  return (
    <form className="time-row custom-range" onSubmit={submit} aria-label="Custom range">
      <RangeFields from={from} to={to} onFrom={setFrom} onTo={setTo} />
      <button type="submit" className="time-button primary">
        Show
      </button>
      <FormError error={error} />
    </form>
  );
}
