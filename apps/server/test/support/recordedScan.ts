import type pg from 'pg';
import { BULK_READ_CONTEXT } from '@aioscope/core';
import type { IoStatDelta } from '@aioscope/spec';
import type { HistoryReader } from '../../src/history/historyReader.ts';
import { present } from './historyTarget.ts';
import { sleep, waitUntil } from './polling.ts';

const SECOND_MS = 1_000;

export interface RecordedScanSetup {
  scanner: pg.Client;
  /** The watched target's pg_stat_io deltas as the monitor emits them, appended to by the test. */
  deltas: readonly IoStatDelta[];
  history: HistoryReader;
  table: string;
  /** Run after the session setting and before the scan, e.g. evicting the table from every cache. */
  beforeScan?: () => Promise<unknown>;
}

/**
 * One sequential scan with the given io_combine_limit (blocks; user-settable), as a range that ends
 * once pg_stat_io counted it (a backend flushes its counts when it goes idle) and the store holds
 * that count.
 */
export async function recordScanWith(
  setup: RecordedScanSetup,
  ioCombineLimit: number,
): Promise<{ from: number; to: number }> {
  const { scanner, deltas, history } = setup;
  await scanner.query(`SET io_combine_limit = ${ioCombineLimit}`);
  await setup.beforeScan?.();
  // A range holds the roll-ups whose second starts in it: started mid-second, a scan counted in
  // that same second would fall outside its own range, so the scan waits for a second to start.
  await sleep(SECOND_MS - (Date.now() % SECOND_MS));
  const from = Math.floor(Date.now() / SECOND_MS) * SECOND_MS;
  const seen = deltas.length;
  await scanner.query(`SELECT count(*) FROM ${setup.table}`);
  // The scan's own count: its reads go through the bulkread ring. Any read counts of other work
  // (the cache eviction before it, catalog reads) can land first, and a range ended there held too
  // few reads to tell a read size (CI: "expected bytes per read of B").
  const scanReads = (delta: IoStatDelta): number => delta.byContext[BULK_READ_CONTEXT]?.reads ?? 0;
  await waitUntil(() => deltas.slice(seen).some((delta) => scanReads(delta) > 0), 20_000, 'the scan in pg_stat_io');
  const counted = present(
    deltas.slice(seen).find((delta) => scanReads(delta) > 0),
    'the delta that counted the scan',
  );
  const range = { from, to: Math.ceil(counted.t) + 1 };
  const storedReads = async (): Promise<number> =>
    (await history.rollups(range, 1_000)).reduce((sum, point) => sum + point.statReads, 0);
  await waitUntil(
    async () => (await storedReads()) >= scanReads(counted),
    // The store writes every 2 s, a second's roll-up a second after it ends; more on a loaded machine.
    30_000,
    'the scan in the store',
  );
  return range;
}
