import { labRun as coreLabRun } from '@aioscope/core/testing/labRuns';
import type { LabRun, LiveFrame, Race, RaceLane } from '@aioscope/spec';

/**
 * Races built around recorded frames, as the server's race endpoint would send them: the frames
 * are a real server's (the caller reads them: Node and the component tests' browser read
 * recordings differently); the runs' EXPLAIN figures are the test's own.
 */

/**
 * A finished lab run of `variant`, round 1: `executionMs` as EXPLAIN would say it. Core's lab run
 * (its module alone: the browser cannot load the recordings core/testing reads from files).
 */
export function labRun(variant: string, executionMs: number, bytesPerRead = 131072): LabRun {
  return coreLabRun(variant, 1, executionMs, bytesPerRead);
}

/** One lane over `frames`; `finished` null while its run has not returned. */
export function raceLane(variant: string, frames: LiveFrame[], finished: LabRun | null): RaceLane {
  return {
    variant,
    round: 1,
    pid: 1,
    startT: frames[0]?.t ?? 0,
    endT: frames.at(-1)?.t ?? 0,
    frames,
    run: finished,
    readsSeen: 0,
    seenShare: null,
    blocksPerRead: finished === null ? null : 16,
    captureError: null,
  };
}

/** A race of icl=1 against icl=16 (the lab's "Show read combining") with these lanes. */
export function raceOf(lanes: RaceLane[], status: Race['experiment']['status'] = 'done'): Race {
  const variants = [
    { name: 'icl=1', session: { io_combine_limit: 1 }, server: {} },
    { name: 'icl=16', session: { io_combine_limit: 16 }, server: {} },
  ];
  return {
    id: 'abcdefabcdef',
    captureHz: 100,
    lanes,
    captures: lanes.length > 0 ? 'kept' : 'none',
    experiment: {
      id: 'abcdefabcdef',
      targetId: 't',
      targetName: 't',
      createdAt: 0,
      finishedAt: 1,
      status,
      error: status === 'failed' ? 'could not extend file' : null,
      cancelReason: status === 'cancelled' ? 'cancelled on request' : null,
      definition: { tableMb: 256, cacheState: 'cold', rounds: 3, baseline: 0, variants },
      plannedRuns: 6,
      runs: [],
      summary: [],
      notes: [],
    },
  };
}
