import type { LiveFrame } from '@aioscope/spec';

/** A frame at `t` with nothing in flight: for tests of what the store and its clocks do with frames, not with their content. */
export const quietFrame = (t: number): LiveFrame => ({
  t,
  sampleMs: 1,
  skippedTicks: 0,
  inflight: null,
  newReads: null,
  ioWorkers: [],
  waits: {},
  byProcess: {},
});
