import { MAX_RAW_RANGE_MS } from '@aioscope/spec';
import { formatClockTime } from '../format.ts';

/**
 * What the dashboard shows, in time: the live edge, or a past range with a moment in it (the
 * instant the scan map, processes and "now" figures show), possibly replaying. Kept in the URL so
 * that a link opens exactly that view.
 */
export type TimeView =
  | { mode: 'live' }
  | {
      mode: 'range';
      from: number;
      to: number;
      /** The moment shown by the instant panels; within [from, to]. */
      at: number;
      /** Replay speed (1 = real time); null when not replaying. */
      speed: ReplaySpeed | null;
    };

export const REPLAY_SPEEDS = [0.1, 0.25, 1, 4, 16] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** The range buttons: how far back from now each one reaches. */
export const RANGE_PRESETS = [
  { label: '1 min', ms: 60_000 },
  { label: '5 min', ms: 5 * 60_000 },
  { label: '15 min', ms: 15 * 60_000 },
  { label: '1 h', ms: 3_600_000 },
  { label: '6 h', ms: 6 * 3_600_000 },
  { label: '24 h', ms: 24 * 3_600_000 },
] as const;

export const LIVE: TimeView = { mode: 'live' };

export interface ViewLocation {
  /** The server shown (its page is /t/:id); null: the overview, or the only server. */
  targetId: string | null;
  view: TimeView;
  /** The selected process. */
  pid: number | null;
}

function wholeMs(text: string | null): number | null {
  if (text === null || !/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

function speedOf(text: string | null): ReplaySpeed | null {
  const value = Number(text);
  return (REPLAY_SPEEDS as readonly number[]).includes(value) ? (value as ReplaySpeed) : null;
}

const TARGET_PATH = /^\/t\/([a-z0-9-]{1,64})\/?$/;

/**
 * Reads a location: the server from its path (/t/:id; a `target` query is read too), the time
 * from the query. Anything malformed falls back to the live view rather than showing a broken
 * range: a shared link with a typo still opens the dashboard.
 */
export function parseLocation(search: string, pathname = '/'): ViewLocation {
  const params = new URLSearchParams(search);
  const target = TARGET_PATH.exec(pathname)?.[1] ?? params.get('target');
  const targetId = target !== null && /^[a-z0-9-]{1,64}$/.test(target) ? target : null;
  const pidValue = wholeMs(params.get('pid'));
  const pid = pidValue !== null && pidValue > 0 && pidValue < 2 ** 31 ? pidValue : null;
  const from = wholeMs(params.get('from'));
  const to = wholeMs(params.get('to'));
  if (from === null || to === null || from >= to) return { targetId, view: LIVE, pid };
  const at = wholeMs(params.get('at'));
  return {
    targetId,
    pid,
    view: {
      mode: 'range',
      from,
      to,
      at: at !== null && at >= from && at <= to ? at : to,
      speed: speedOf(params.get('speed')),
    },
  };
}

/** The path and query of a location: /t/:id?from=…, or / for the overview. */
export function formatLocation(location: ViewLocation): string {
  const params = new URLSearchParams();
  const path = location.targetId === null ? '/' : `/t/${location.targetId}`;
  const { view } = location;
  if (view.mode === 'range') {
    params.set('from', String(Math.round(view.from)));
    params.set('to', String(Math.round(view.to)));
    if (view.at !== view.to) params.set('at', String(Math.round(view.at)));
    if (view.speed !== null) params.set('speed', String(view.speed));
  }
  if (location.pid !== null) params.set('pid', String(location.pid));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Whether a range is short enough to be read as raw samples (else roll-ups). */
export function readsRawFrames(view: TimeView): boolean {
  return view.mode === 'range' && view.to - view.from <= MAX_RAW_RANGE_MS;
}

/**
 * A range of exactly `ms` ending at `end` (rounded up to a whole ms, as the URL keeps it), shown
 * at its end. Rounding the ends apart (from down, to up) made "1 min" 60,001 ms: no preset showed
 * as pressed, "15 min" drew roll-ups, and a replay started 1 ms before the end and stopped at once.
 */
export function rangeEndingAt(end: number, ms: number): TimeView {
  const to = Math.ceil(end);
  return { mode: 'range', from: to - ms, to, at: to, speed: null };
}

/**
 * Error of a difference of two epoch-ms doubles (their last bit is about 0.0002 ms): a length
 * within this of a whole ms is that whole ms, not one more.
 */
const LENGTH_SLACK_MS = 0.01;

/**
 * A range in whole milliseconds: the server's clock is fractional, the API and the URL take whole
 * ms, and a view whose `from` differs from its answer's by a fraction would wait for data forever.
 * It covers the range asked for without growing a whole-ms length (a 60 s range stays 60,000 ms),
 * and a moment at the end stays at the end.
 */
export function wholeMsView(view: TimeView): TimeView {
  if (view.mode === 'live') return view;
  const from = Math.floor(view.from);
  const length = view.to - view.from;
  // A whole length (a preset, a marker's minute) is kept; any other one is rounded up to cover the range.
  const wholeLength = Math.abs(length - Math.round(length)) < LENGTH_SLACK_MS;
  const to = from + Math.max(1, wholeLength ? Math.round(length) : Math.ceil(view.to - from));
  const at = view.at >= view.to ? to : Math.min(to, Math.max(from, Math.round(view.at)));
  return { ...view, from, to, at };
}

/** The moment clamped into a range. */
export function clampAt(view: Extract<TimeView, { mode: 'range' }>, at: number): number {
  return Math.min(view.to, Math.max(view.from, at));
}

const NICE_BUCKETS_MS = [10, 20, 50, 100, 200, 250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000];

/**
 * Chart bucket for a range: about 240 buckets across it, never finer than one sample, rounded to
 * a value a caption can say ("mean per 2 s").
 */
export function bucketMsForRange(rangeMs: number, sampleIntervalMs: number): number {
  const wanted = Math.max(sampleIntervalMs, rangeMs / 240);
  return NICE_BUCKETS_MS.find((ms) => ms >= wanted) ?? Math.ceil(wanted / 60_000) * 60_000;
}

/**
 * Replay as it would have looked live: 120 buckets across the window, like the live view, with
 * buckets scaled by the speed so the page redraws about twice a second whatever the speed (at
 * 1/10x a 6 s window of 50 ms buckets; at 4x 4 min of 2 s buckets).
 */
export function replayWindow(speed: ReplaySpeed, sampleIntervalMs: number): { windowMs: number; bucketMs: number } {
  const bucketMs = Math.max(sampleIntervalMs, 500 * speed);
  return { windowMs: bucketMs * 120, bucketMs };
}

/** Human text of a range for captions: "12:03:10–12:08:10" (same day) or with dates. */
export function describeRange(from: number, to: number): string {
  const start = new Date(from);
  const end = new Date(to);
  const time = (d: Date): string => formatClockTime(d.getTime());
  const sameDay = start.toDateString() === end.toDateString();
  return sameDay
    ? `${time(start)}–${time(end)}`
    : `${start.toLocaleDateString()} ${time(start)} – ${end.toLocaleDateString()} ${time(end)}`;
}
