import { useCallback, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { MAX_RAW_RANGE_MS, type HistoryFrames, type IoStatDelta, type LiveFrame, type ScanView } from '@aioscope/spec';
import { useHistoryFrames } from '../api/history.ts';
import type { TimeAxis } from '../charts/timeSeriesLayers.ts';
import { LiveStore, momentProcessRows, WINDOW_MS } from '../live/liveStore.ts';
import { PROCESS_KEEP_MS, type ProcessRow } from '../live/stableProcesses.ts';
import { firstAfter, firstAtOrAfter, itemsIn, momentOf, stepMoment } from './momentOf.ts';
import {
  bucketMsForRange,
  clampAt,
  readsRawFrames,
  replayWindow,
  wholeMsView,
  type TimeView,
  type ViewLocation,
} from './timeView.ts';
import type { LocationUpdate } from './useViewLocation.ts';

/** The replay clock's tick, in the browser's time: four moves a second, each `speed` × 250 ms of the recording. */
const REPLAY_TICK_MS = 250;

export type RangeView = Extract<TimeView, { mode: 'range' }>;

/** What the panels draw for a past range with every sample (15 minutes or less). */
export interface PastView {
  view: RangeView;
  /** The moment's store, for what follows it per sample: the strip and the "now" figures (LiveStore.showMoment). */
  store: LiveStore;
  /** The moment's scan map and processes table, in the same render as its charts. */
  scans: readonly ScanView[];
  processRows: readonly ProcessRow[];
  frames: readonly LiveFrame[];
  /** The frames up to the moment: the verdicts and "now" figures are about it, not the range's end. */
  momentFrames: readonly LiveFrame[];
  deltas: readonly IoStatDelta[];
  domain: [number, number];
  bucketMs: number;
  axis: TimeAxis;
}

export interface TimeTravel {
  view: TimeView;
  /** The moment of a range (its end unless moved); the live edge has none. */
  at: number | null;
  playing: boolean;
  /** Set when a range is shown with every sample and its data arrived. */
  past: PastView | null;
  pastLoading: boolean;
  pastError: string | null;
  setView: (view: TimeView) => void;
  setMoment: (at: number) => void;
  setPlaying: (playing: boolean) => void;
  step: (direction: -1 | 1) => void;
  /** Freezes what the live view shows now: its last minute becomes the range on screen. */
  pause: (live: LiveStore, domainEnd: number) => void;
}

/** The live store's window, held still: a pause needs no round trip and works with recording off. */
function frozenCopy(live: LiveStore, from: number, to: number): HistoryFrames {
  return {
    targetId: '',
    from,
    to,
    frames: itemsIn(live.frames, from, to),
    ioDeltas: itemsIn(live.deltas, from, to),
    processes: [{ t: to, processes: live.processes }],
    scansBefore: null,
    processesBefore: null,
  };
}

/**
 * The dashboard's place in time: live, or a past range read from the history API, with a moment
 * and an optional replay that moves the moment at a speed. The URL follows (useViewLocation).
 */
export function useTimeTravel(
  location: ViewLocation,
  setLocation: LocationUpdate,
  targetId: string | null,
  sampleRateHz: number,
): TimeTravel {
  const { view } = location;
  const [playing, setPlayingState] = useState(false);
  const [frozen, setFrozen] = useState<HistoryFrames | null>(null);
  const store = useMemo(() => new LiveStore(), []);
  const range = view.mode === 'range' ? view : null;
  const useFrozen = range !== null && frozen !== null && frozen.from === range.from && frozen.to === range.to;
  const rawRange = range !== null && readsRawFrames(range) && !useFrozen ? { from: range.from, to: range.to } : null;
  const query = useHistoryFrames(targetId, rawRange);
  const fetched =
    query.data !== undefined && rawRange !== null && query.data.from === rawRange.from ? query.data : null;
  const data = useFrozen ? frozen : fetched;

  // Each move is made from the newest location (the URL's), not this render's: a replay tick or a
  // step not yet drawn would otherwise be undone by the next click (a step after a pause on a busy
  // page landed one sample short).
  const setView = useCallback(
    (next: TimeView) => {
      if (next.mode === 'live' || next.speed === null) setPlayingState(false);
      setLocation((newest) => ({ ...newest, view: wholeMsView(next) }));
    },
    [setLocation],
  );
  const moveMoment = useCallback(
    (move: (view: RangeView) => number | null) =>
      setLocation((newest) => {
        if (newest.view.mode !== 'range') return newest;
        const at = move(newest.view);
        if (at === null) return newest;
        return { ...newest, view: { ...newest.view, at: Math.round(clampAt(newest.view, at)) } };
      }, 'replace'),
    [setLocation],
  );
  const setMoment = useCallback((at: number) => moveMoment(() => at), [moveMoment]);
  const setPlaying = useCallback((next: boolean) => setPlayingState(next), []);
  const rangeFrames = data?.frames ?? null;
  const step = useCallback(
    (direction: -1 | 1) => {
      if (rangeFrames === null) return;
      setPlayingState(false);
      moveMoment((view) => stepMoment(rangeFrames, view.at, direction));
    },
    [rangeFrames, moveMoment],
  );
  const pause = useCallback(
    (live: LiveStore, domainEnd: number) => {
      const to = Math.ceil(domainEnd);
      const from = to - WINDOW_MS;
      setFrozen(frozenCopy(live, from, to));
      setPlayingState(false);
      setLocation((newest) => ({ ...newest, view: { mode: 'range', from, to, at: to, speed: null } }));
    },
    [setLocation],
  );

  const replaySpeed = range?.speed ?? null;
  // The replay clock: moves the moment on while playing, stops at the range's end.
  useEffect(() => {
    if (!playing || replaySpeed === null) return undefined;
    // The playhead moves by the wall time that passed, not by a fixed step per tick: a late tick
    // (a busy page) would otherwise slow the replay down. moveMoment is made once, so a move does
    // not restart the timer (restarting lost the time since the last tick: 4x measured 3.69x).
    let last = performance.now();
    const timer = window.setInterval(() => {
      const now = performance.now();
      const elapsed = now - last;
      last = now;
      moveMoment((view) => {
        const next = view.at + elapsed * replaySpeed;
        if (next >= view.to) setPlayingState(false);
        return Math.min(next, view.to);
      });
    }, REPLAY_TICK_MS);
    return () => window.clearInterval(timer);
  }, [playing, replaySpeed, moveMoment]);

  const sampleIntervalMs = 1000 / (sampleRateHz || 20);
  // The moment's instant views (scan map, processes, the store the strip reads), computed with the
  // charts' frames so that one render draws one moment.
  const moment = useMemo(() => {
    if (range === null || data === null) return null;
    const read = momentOf(data, range.at - WINDOW_MS, range.at, PROCESS_KEEP_MS);
    return { read, at: range.at, processRows: momentProcessRows(read) };
  }, [range, data]);
  const past = useMemo((): PastView | null => {
    if (range === null || data === null || moment === null || range.to - range.from > MAX_RAW_RANGE_MS) return null;
    const instant = { view: range, store, scans: moment.read.scans, processRows: moment.processRows };
    if (range.speed !== null) {
      // A replay looks like the live view did at that moment: a window ending at the playhead.
      const { windowMs, bucketMs } = replayWindow(range.speed, sampleIntervalMs);
      const domain: [number, number] = [range.at - windowMs, range.at];
      const frames = data.frames.slice(firstAtOrAfter(data.frames, domain[0]), firstAfter(data.frames, range.at));
      const deltas = data.ioDeltas.slice(firstAtOrAfter(data.ioDeltas, domain[0]), firstAfter(data.ioDeltas, range.at));
      return { ...instant, frames, momentFrames: frames, deltas, domain, bucketMs, axis: 'replay' };
    }
    const frames = itemsIn(data.frames, range.from, range.to);
    return {
      ...instant,
      frames,
      momentFrames: frames.slice(0, firstAfter(frames, range.at)),
      deltas: itemsIn(data.ioDeltas, range.from, range.to),
      domain: [range.from, range.to],
      bucketMs: bucketMsForRange(range.to - range.from, sampleIntervalMs),
      axis: 'clock',
    };
  }, [range, data, moment, store, sampleIntervalMs]);

  // The strip and the "now" figures follow the store: it shows the moment before the paint.
  useLayoutEffect(() => {
    if (moment !== null) store.showMoment(moment.read, moment.at, moment.processRows);
  }, [store, moment]);

  return {
    view,
    at: range?.at ?? null,
    playing,
    past,
    pastLoading: rawRange !== null && query.isFetching && fetched === null,
    pastError: rawRange !== null && query.error !== null ? query.error.message : null,
    setView,
    setMoment,
    setPlaying,
    step,
    pause,
  };
}
