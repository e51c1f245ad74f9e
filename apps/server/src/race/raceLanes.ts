import type { LabExperiment, LabRun, LiveFrame, RaceLane } from '@aioscope/spec';
import type { CapturedRun } from './runCapture.ts';

/** A captured run, by the lab's names for it. */
export interface StoredCapture extends CapturedRun {
  variant: string;
  round: number;
  pid: number;
}

export function captureKey(variant: string, round: number): string {
  return `${variant}#${round}`;
}

/** Distinct reads the frames saw: each frame counts only reads not in flight in the sample before. */
export function readsSeen(frames: readonly LiveFrame[]): number {
  return frames.reduce((sum, frame) => sum + (frame.newReads?.count ?? 0), 0);
}

/** Builds a lane from a capture and the lab's measurement of the same run (null when it never ended). */
export function laneOf(capture: StoredCapture, run: LabRun | null): RaceLane {
  const seen = readsSeen(capture.frames);
  const reads = run?.reads ?? null;
  return {
    variant: capture.variant,
    round: capture.round,
    pid: capture.pid,
    startT: capture.startT,
    endT: capture.endT,
    frames: capture.frames,
    run,
    readsSeen: seen,
    // More seen than counted happens when a read is retried; the share is capped at all of them.
    seenShare: reads !== null && reads > 0 ? Math.min(1, seen / reads) : null,
    blocksPerRead: run !== null && reads !== null && reads > 0 ? run.sharedReadBlocks / reads : null,
    captureError: capture.error,
  };
}

/**
 * The run a variant's lane shows: the finished run whose time is nearest its variant's median
 * (earliest round on ties), so the race shows a typical run rather than the luckiest one. A
 * variant with no finished captured run shows its last captured one, which the view reports as
 * unfinished rather than draws as a result.
 */
export function chooseLanes(experiment: LabExperiment, captures: ReadonlyMap<string, StoredCapture>): RaceLane[] {
  const lanes: RaceLane[] = [];
  for (const variant of experiment.definition.variants) {
    const summary = experiment.summary.find((row) => row.variant === variant.name);
    const finished = experiment.runs
      .filter((run) => run.variant === variant.name && captures.has(captureKey(run.variant, run.round)))
      .sort(
        (a, b) =>
          Math.abs(a.executionMs - (summary?.medianMs ?? 0)) - Math.abs(b.executionMs - (summary?.medianMs ?? 0)) ||
          a.round - b.round,
      );
    const chosen = finished[0];
    if (chosen !== undefined) {
      const capture = captures.get(captureKey(chosen.variant, chosen.round));
      if (capture !== undefined) lanes.push(laneOf(capture, chosen));
      continue;
    }
    const unfinished = [...captures.values()]
      .filter((capture) => capture.variant === variant.name)
      .sort((a, b) => b.round - a.round)[0];
    if (unfinished !== undefined) lanes.push(laneOf(unfinished, null));
  }
  return lanes;
}
