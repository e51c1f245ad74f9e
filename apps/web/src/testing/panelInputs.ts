import { summarizeLiveWindow, type LiveWindowSummary } from '@aioscope/core';
import type { RecordedPayloads } from '@aioscope/core/testing';
import type { IoStatDelta, LiveFrame, TargetSummary } from '@aioscope/spec';
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
    stale: false,
  };
}
