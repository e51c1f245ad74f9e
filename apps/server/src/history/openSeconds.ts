import { wholeSecondOf, type PendingRow } from './storeEngine.ts';

/**
 * A second still being sampled is waited for at most this long after its first sample arrived:
 * a sampler that stalls (a slow or lost server) must not keep its last rows out of the store.
 */
export const OPEN_SECOND_LIMIT_MS = 1_500;

/**
 * For an engine that packs each target's second into one row (the shared store: pgStoreWriter.ts):
 * which pending rows belong to a second still being sampled, so they wait for the batch after it
 * ends. Written mid-second, a second becomes two rows, and the store grows by the second row's
 * overhead and its bodies compressed apart.
 *
 * A second is complete once a sample of a later second of the same target and kind has arrived,
 * or OPEN_SECOND_LIMIT_MS after its first sample arrived (by this process's clock: a row's own `t`
 * is the watched server's, which may be skewed).
 */
export class OpenSeconds {
  /**
   * Per target and kind, the newest second that arrived and when its first sample did: an entry per
   * target ever recorded here and kind, bounded by the targets file.
   */
  private readonly newest = new Map<string, { second: number; arrivedAt: number }>();

  /** Called for each row as it is enqueued. */
  note(row: PendingRow, now: number): void {
    if (row.table !== 'raw') return;
    const key = `${row.target}\u0000${String(row.kind)}`;
    const second = wholeSecondOf(row.t);
    const seen = this.newest.get(key);
    if (seen === undefined || second > seen.second) this.newest.set(key, { second, arrivedAt: now });
  }

  /** `rows` in their order, split into those to write now and those of a second still open. */
  split(rows: readonly PendingRow[], now: number): { ready: PendingRow[]; held: PendingRow[] } {
    const ready: PendingRow[] = [];
    const held: PendingRow[] = [];
    for (const row of rows) {
      if (row.table === 'raw' && this.isOpen(row.target, row.kind, wholeSecondOf(row.t), now)) held.push(row);
      else ready.push(row);
    }
    return { ready, held };
  }

  private isOpen(target: string, kind: number, second: number, now: number): boolean {
    const seen = this.newest.get(`${target}\u0000${String(kind)}`);
    return seen !== undefined && seen.second === second && now - seen.arrivedAt < OPEN_SECOND_LIMIT_MS;
  }
}
