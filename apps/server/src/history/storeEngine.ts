import type { RollupAccumulator } from '@aioscope/core';
import type { HistoryEvent, HistoryExtent, RecordingState } from '@aioscope/spec';
import type { BaselineShelf } from './baselineShelf.ts';
import type { HistoryReader } from './historyReader.ts';
import type { MigrationOutcome } from './migrations.ts';
import type { RecordingLimits } from '../config/recordingLimits.ts';

/** What a raw row holds; the number is stored (DuckDB: UTINYINT). */
export const RAW_KIND = { frame: 0, ioDelta: 1, processes: 2 } as const;
export type RawKind = (typeof RAW_KIND)[keyof typeof RAW_KIND];

/** A row waiting in memory for the next batch, whatever the store. */
export type PendingRow =
  | { table: 'raw'; target: string; kind: RawKind; t: number; hasScans: boolean; body: string }
  | { table: 'rollup'; target: string; acc: RollupAccumulator }
  | { table: 'event'; target: string; event: HistoryEvent }
  /** t: when this description took effect (the store keeps each change: descriptionHistory.ts). */
  | { table: 'target'; target: string; t: number; description: string };

export type TargetDescription = Awaited<ReturnType<HistoryReader['describe']>>;

export interface RecordingStatus {
  state: RecordingState;
  reason: string | null;
}

/** What a store engine said when it opened. */
export interface EngineOpened {
  /** Where an unreadable store was moved before a new one was started, when it was. */
  movedAside: string | null;
  /** The schema version the store was found at, the one it is at now, and the steps that ran. */
  migrated: MigrationOutcome;
}

/** What retention removed, for the log and the tests. */
export interface RetentionOutcome {
  /** Start times (ms) of the raw partitions dropped whole. */
  droppedRawFrom: number[];
  /** Bytes the store holds afterwards. */
  usedBytes: number;
}

/** What a reader made by an engine asks of the store around it. */
export interface StoreState {
  readonly limits: RecordingLimits;
  recordingStatus(): RecordingStatus;
  bytesOnDisk(): Promise<number>;
}

/** A target's extent as every store reports it: what it keeps, and the store's state around it. */
export async function storeExtent(
  targetId: string,
  state: StoreState,
  kept: Pick<HistoryExtent, 'raw' | 'rollups'>,
): Promise<HistoryExtent> {
  return {
    targetId,
    recording: state.recordingStatus(),
    ...kept,
    retention: { ...state.limits },
    bytesOnDisk: await state.bytesOnDisk(),
  };
}

/** The whole second a sample falls in: the shared store's raw rows group samples by it. */
export const wholeSecondOf = (t: number): number => Math.floor(t / 1000) * 1000;

/** How often an engine is written, which is also what a kill -9 of the process loses. */
export interface StoreBatching {
  /** Between two batches: the engine's fixed cost per batch against the rows a kill -9 loses. */
  intervalMs: number;
  /**
   * The engine packs each target's second into one row: rows of a second still being sampled wait
   * for the first batch after it ends (openSeconds.ts), so a second is one row, not two.
   */
  wholeSeconds: boolean;
}

/**
 * One kind of history store (the embedded DuckDB file, a shared PostgreSQL database…): the parts
 * that know the engine. HistoryStore holds one and adds what every store does the same way: the
 * bounded batch, writes off the sampler's path, pausing with the reason on a failure and resuming,
 * retention on a timer. A new store is one module implementing this, and passes the contract
 * tests in storeContract.ts. Its baselines (BaselineShelf) throw StoreClosedError while it is closed.
 *
 * Lifecycle: open() → write/applyRetention/reads … → close(); after a failure HistoryStore calls
 * close() and, later, open() again. While closed, readers answer as an empty past.
 */
export interface StoreEngine extends BaselineShelf {
  /** For the log: "history store at …/history.duckdb". */
  readonly label: string;
  /** How HistoryStore batches rows for this engine. */
  readonly batching: StoreBatching;
  /**
   * Opens the store, creating it or migrating it to the newest schema version. Throws a
   * StoreRefusedError (migrations.ts) for a store this code must not open, having written nothing.
   */
  open(): Promise<EngineOpened>;
  /** Writes one batch in one transaction: all of it or none. */
  write(rows: readonly PendingRow[]): Promise<void>;
  /** Removes what the limits no longer keep, by whole time partitions where the engine has them. */
  applyRetention(limits: RecordingLimits, now: number): Promise<RetentionOutcome>;
  /** One target's past, read by range; `storedAs` is its target column's value when not its id. */
  reader(targetId: string, state: StoreState, describe: () => TargetDescription): HistoryReader;
  /** What the store says of a target from when it was last recorded; null if never, or closed. */
  storedDescription(targetId: string): Promise<TargetDescription | null>;
  /** Bytes the store takes (for an embedded file, on disk; for a server, its tables). */
  bytesOnDisk(): Promise<number>;
  /** Lets reads in flight finish, then closes; never throws. */
  close(): Promise<void>;
}
