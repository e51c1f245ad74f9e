import type {
  HistoryEvent,
  HistoryExtent,
  HistoryFrames,
  HistoryRange,
  RecordingHeader,
  RollupPoint,
} from '@aioscope/spec';
import type { BaselineShelf } from './baselineShelf.ts';
import type { RecordingStatus } from './storeEngine.ts';

/**
 * The past of one target, however it is kept: the recorder's store (DuckDB under the data folder)
 * or a recording file opened in memory (`open FILE`, a dropped file). The history routes and the
 * exporter read only through this, so a recording file is served by exactly the code that serves
 * the live store.
 */
export interface HistoryReader {
  readonly targetId: string;
  extent(): Promise<HistoryExtent>;
  /** Raw samples in [from, to); callers keep ranges within MAX_RAW_RANGE_MS. */
  frames(range: HistoryRange): Promise<HistoryFrames>;
  /** Roll-ups in [from, to) at stepMs (a whole multiple of ROLLUP_BASE_STEP_MS). */
  rollups(range: HistoryRange, stepMs: number): Promise<RollupPoint[]>;
  events(range: HistoryRange): Promise<HistoryEvent[]>;
  /** What a recording file of [from, to) says about itself, minus its range and counts. */
  describe(): Promise<Omit<RecordingHeader, 'range' | 'counts' | 'createdAt' | 'format' | 'version' | 'producer'>>;
  /**
   * What describe() said at time t (server version, capabilities, rates as they were then): a
   * store's description history; a recording file's header (one description for all of it).
   */
  describeAt(t: number): ReturnType<HistoryReader['describe']>;
}

/** Every target's history, by target id; a consumer of the monitors, like the live hub. */
export interface HistoryCatalog {
  get(targetId: string): HistoryReader | undefined;
  /** A target of the targets file another replica samples, read from the shared store (--store). */
  elsewhere?(targetId: string): HistoryReader | undefined;
  /** How the shared store (--store) last described a target, whichever replica sampled it; null: never. */
  storedDescription?(targetId: string): Promise<Awaited<ReturnType<HistoryReader['describe']>> | null>;
  /** Whether what is recorded is written to the shared store (--store); absent for the embedded store. */
  recording?(): RecordingStatus;
  /** The store's baselines; absent when nothing is recorded (--no-record): they need the store. */
  readonly baselines?: BaselineShelf;
}

/** A range with nothing in it: what a reader answers before anything was kept. */
export function emptyHistoryFrames(targetId: string, range: HistoryRange): HistoryFrames {
  return {
    targetId,
    ...range,
    frames: [],
    ioDeltas: [],
    processes: [],
    scansBefore: null,
    processesBefore: null,
  };
}
