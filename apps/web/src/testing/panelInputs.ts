import { rollup, summarizeLiveWindow, type LiveWindowSummary } from '@aioscope/core';
import type { RecordedPayloads } from '@aioscope/core/testing';
import type { HistoryRollups, IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
import { LiveStore, WINDOW_MS } from '../live/liveStore.ts';

/** What App hands the live panels, built from one recorded server's payloads as App builds it. */
export interface PanelInputs {
  frames: LiveFrame[];
  summary: LiveWindowSummary;
  deltas: IoStatDelta[];
  /** The 60 s window ending at the newest frame. */
  domain: [number, number];
  bucketMs: number;
  target: TargetSummary;
  store: LiveStore;
  /** The newest frame received, as the bucket clock reads it at a render. */
  newest: LiveFrame | undefined;
  stale: boolean;
}

/** `frames`: the recorded frames the page has received so far (all of them unless given). */
export function panelInputs(payloads: RecordedPayloads, frames: LiveFrame[] = payloads.frames): PanelInputs {
  const store = new LiveStore();
  store.replace({ ...payloads.snapshot, frames });
  const end = frames.at(-1)?.t ?? payloads.summary.status.since;
  return {
    frames,
    summary: summarizeLiveWindow(frames),
    deltas: payloads.ioDeltas,
    domain: [end - WINDOW_MS, end],
    bucketMs: 500,
    target: payloads.summary,
    store,
    newest: frames.at(-1),
    stale: false,
  };
}

/**
 * A long range as LongRange hands it to the panels: one recorded server's samples re-timed 100 ms
 * apart, rolled up by core's rollup() (what the store reads back) in steps of `stepMs`.
 * `keptStates: false`: roll-ups of a store written before it kept reads by state.
 */
export function rollupInputs(
  payloads: RecordedPayloads,
  { stepMs = 1_000, keptStates = true }: { stepMs?: number; keptStates?: boolean } = {},
): { rollups: HistoryRollups; target: TargetSummary } {
  const from = 1_800_000_000_000;
  const frames = payloads.frames.map((frame, i) => ({ ...frame, t: from + i * 100 }));
  const deltas = payloads.ioDeltas.map((delta, i) => ({ ...delta, t: from + i * 1_000 + 500 }));
  const to = Math.max(from + 1_000, (frames.at(-1)?.t ?? from) + 1, (deltas.at(-1)?.t ?? from) + 1);
  const points = rollup(frames, deltas, from, to, stepMs).map((point) =>
    keptStates ? point : { ...point, readsByState: null },
  );
  return { rollups: { targetId: payloads.summary.id, from, to, stepMs, points }, target: payloads.summary };
}
