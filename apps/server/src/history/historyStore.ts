import type { Logger } from '../system/logger.ts';
import type { BaselineShelf } from './baselineShelf.ts';
import type { HistoryReader } from './historyReader.ts';
import { StoreRefusedError, type MigrationOutcome } from './migrations.ts';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import type { PendingRow, RecordingStatus, StoreEngine, TargetDescription } from './storeEngine.ts';
import { errorText, pauseReason } from './storeFile.ts';
import { OpenSeconds } from './openSeconds.ts';

export const RETRY_INTERVAL_MS = 2_000;
export const RETENTION_INTERVAL_MS = 60_000;
/** Rows held while the disk is slow or failing: ~2 min at 100 Hz, 10 min at 20 Hz (~10 MB). */
export const MAX_PENDING_ROWS = 12_000;
const CLOSE_WAIT_MS = 5_000;
const RETENTION_START_DELAY_MS = 10_000;

export interface HistoryStoreOptions {
  /** The store itself: DuckDbStoreEngine (the embedded file under the data folder) or another. */
  engine: StoreEngine;
  limits: RecordingLimits;
  log: Logger;
  /** Recording paused (reason) or resumed (reason null, with the rows dropped meanwhile). */
  onRecordingChange?: (status: RecordingStatus, droppedRows: number) => void;
  maxPendingRows?: number;
  /**
   * Replicas sharing a store: null while this process's rows may be written, otherwise why not (its
   * ownership of the targets is not confirmed: TargetOwnership.unconfirmed). Rows wait meanwhile.
   */
  writeGate?: () => string | null;
}

/**
 * The recorder's store, whatever engine keeps it: rows wait in a bounded in-memory batch and are
 * written at the engine's interval (StoreBatching) in one transaction, off the sampler's path (the
 * sampler only appends to an array); a graceful stop writes everything pending. A failed open or
 * write pauses recording with the engine's reason, closes the engine (it may refuse further
 * writes after an I/O error) and retries every 2 s; rows beyond the bound are
 * dropped oldest first and counted, so a stuck disk or a lost server cannot grow memory without
 * limit. A store it must not open (written by a newer aioscope: StoreRefusedError) pauses recording
 * for good, with what to do: it is never retried, written, moved aside or read.
 */
export class HistoryStore {
  private opened = false;
  private pending: PendingRow[] = [];
  private status: RecordingStatus = { state: 'paused', reason: 'opening the history store' };
  private droppedRows = 0;
  private busy = false;
  private closed = false;
  /** The store was refused (StoreRefusedError): nothing will be written, so nothing is held. */
  private refused = false;
  private nextAttemptAt = 0;
  /** Not at start-up: dropping and checkpointing a large store would delay the first page. */
  private nextRetentionAt = Date.now() + RETENTION_START_DELAY_MS;
  private readonly timer: NodeJS.Timeout;
  /** Seconds still being sampled, held back when the engine packs a second into one row. */
  private readonly openSeconds: OpenSeconds | null;
  /** Targets discarded while a write was in flight: if it fails, their rows are not put back. */
  private readonly discardedInFlight = new Set<string>();

  private constructor(private readonly options: HistoryStoreOptions) {
    const { intervalMs, wholeSeconds } = options.engine.batching;
    this.openSeconds = wholeSeconds ? new OpenSeconds() : null;
    this.timer = setInterval(() => void this.cycle(), intervalMs);
    this.timer.unref();
  }

  /** Never throws: a store that cannot open starts paused and keeps trying. */
  static async start(options: HistoryStoreOptions): Promise<HistoryStore> {
    const store = new HistoryStore(options);
    await store.cycle();
    return store;
  }

  get limits(): RecordingLimits {
    return this.options.limits;
  }

  get engine(): StoreEngine {
    return this.options.engine;
  }

  /** The store's baselines: kept by the engine itself, beside the batch (they are never pending). */
  get baselines(): BaselineShelf {
    return this.options.engine;
  }

  recordingStatus(): RecordingStatus {
    return this.status;
  }

  enqueue(row: PendingRow): void {
    if (this.closed || this.refused) return;
    this.pending.push(row);
    this.openSeconds?.note(row, Date.now());
    const max = this.options.maxPendingRows ?? MAX_PENDING_ROWS;
    if (this.pending.length > max) {
      // Trim a tenth at once: one splice per 1,200 rows rather than one shift per row.
      const excess = this.pending.length - Math.floor(max * 0.9);
      this.pending.splice(0, excess);
      this.droppedRows += excess;
    }
  }

  /**
   * Drops what is not yet written of these targets (another replica recorded them meanwhile: see
   * TargetOwnership.onLost), and says how many rows that was.
   */
  discard(targets: ReadonlySet<string>): number {
    const before = this.pending.length;
    this.pending = this.pending.filter((row) => !targets.has(row.target));
    if (this.busy) for (const target of targets) this.discardedInFlight.add(target);
    return before - this.pending.length;
  }

  /** One target's past; while recording is paused it reads as empty, and its extent says why. */
  reader(targetId: string, describe: () => TargetDescription): HistoryReader {
    return this.options.engine.reader(targetId, this, describe);
  }

  /** What the store said about a target when it was last recorded; null if never, or closed. */
  storedDescription(targetId: string): Promise<TargetDescription | null> {
    return this.options.engine.storedDescription(targetId);
  }

  bytesOnDisk(): Promise<number> {
    return this.options.engine.bytesOnDisk();
  }

  /** Writes what is pending (one last try) and closes the engine. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    // A write stuck on a dead disk must not hold up shutdown for ever.
    for (let waited = 0; this.busy && waited < CLOSE_WAIT_MS; waited += 10) await new Promise((r) => setTimeout(r, 10));
    this.closed = true;
    const gated = this.options.writeGate?.() ?? null;
    if (gated !== null && this.pending.length > 0)
      this.options.log.warn(`history: ${this.pending.length} rows not written at close: ${gated}`);
    else if (this.opened && this.pending.length > 0) await this.flush(true).catch(() => undefined);
    this.opened = false;
    await this.options.engine.close();
  }

  /** One timer tick: (re)open when due, write the batch, apply retention when due. */
  private async cycle(): Promise<void> {
    if (this.closed) return;
    if (this.busy) {
      // The previous write is still on the disk or the network: rows wait. Say so if it is stuck
      // while the ownership is lost too (a dead network path holds the write until its timeout).
      const gated = this.options.writeGate?.() ?? null;
      if (gated !== null && this.status.state === 'recording') this.setStatus({ state: 'paused', reason: gated });
      return;
    }
    this.busy = true;
    try {
      if (!this.opened) {
        if (Date.now() < this.nextAttemptAt) return;
        const { movedAside, migrated } = await this.options.engine.open();
        this.opened = true;
        if (movedAside !== null) {
          this.options.log.warn(`history store could not be read; moved aside to ${movedAside}, starting a new one`);
        }
        this.logMigration(migrated);
      }
      const gated = this.options.writeGate?.() ?? null;
      if (gated !== null) {
        // Held, not dropped: the ownership is usually confirmed again within a check or two.
        if (this.status.reason !== gated) this.setStatus({ state: 'paused', reason: gated });
        return;
      }
      await this.flush();
      if (this.status.state !== 'recording') this.setStatus({ state: 'recording', reason: null });
      if (Date.now() >= this.nextRetentionAt) {
        this.nextRetentionAt = Date.now() + RETENTION_INTERVAL_MS;
        await this.options.engine.applyRetention(this.options.limits, Date.now());
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  /** Writes the pending rows, but for seconds still being sampled unless `all` (at close). */
  private async flush(all = false): Promise<void> {
    if (!this.opened || this.pending.length === 0) return;
    const { ready: rows, held } =
      this.openSeconds === null || all
        ? { ready: this.pending, held: [] }
        : this.openSeconds.split(this.pending, Date.now());
    if (rows.length === 0) return;
    this.pending = held;
    try {
      await this.options.engine.write(rows);
    } catch (error) {
      const kept = this.discardedInFlight.size === 0 ? rows : rows.filter((r) => !this.discardedInFlight.has(r.target));
      this.pending = kept.concat(this.pending); // enqueue() bounds them again
      throw error;
    } finally {
      this.discardedInFlight.clear();
    }
  }

  private fail(error: unknown): void {
    this.opened = false;
    void this.options.engine.close();
    const refused = error instanceof StoreRefusedError;
    // Nothing this process does makes a newer store readable; retrying would only open it again.
    this.nextAttemptAt = refused ? Infinity : Date.now() + RETRY_INTERVAL_MS;
    if (refused) {
      this.refused = true;
      this.pending = [];
    }
    const reason = pauseReason(error);
    if (this.status.state === 'paused' && this.status.reason === reason) return;
    this.options.log.warn(
      refused
        ? `history recording paused: ${reason}; not retried`
        : `history recording paused: ${reason} (${errorText(error)}); retrying every ${RETRY_INTERVAL_MS / 1000} s`,
    );
    this.setStatus({ state: 'paused', reason });
  }

  private logMigration({ from, to, adopted, ran }: MigrationOutcome): void {
    const { log } = this.options;
    if (adopted) log.info(`history store from before store versions adopted as version ${from}`);
    if (ran.length === 0) return;
    if (from === 0) log.info(`history store created at version ${to}`);
    else log.info(`history store migrated from version ${from} to ${to}: ${ran.map((s) => s.describe).join('; ')}`);
  }

  private setStatus(status: RecordingStatus): void {
    const wasOpening = this.status.reason === 'opening the history store';
    this.status = status;
    if (status.state === 'recording') {
      if (!wasOpening)
        this.options.log.info(`history recording resumed (${this.droppedRows} rows dropped while paused)`);
      if (!wasOpening || this.droppedRows > 0) this.options.onRecordingChange?.(status, this.droppedRows);
      this.droppedRows = 0;
    } else {
      this.options.onRecordingChange?.(status, this.droppedRows);
    }
  }
}
