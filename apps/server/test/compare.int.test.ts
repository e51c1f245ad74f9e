import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { CompareResult, IoStatDelta } from '@aioscope/spec';
import { ensureDemoTable, makeDemoTableCold, type DemoTableInfo } from '../src/demo/demoTable.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { HistoryReader } from '../src/history/historyReader.ts';
import type { RunningAioscope } from '../src/app/server.ts';
import { freshDataDir, historyConfig, present, startWatching } from './support/historyTarget.ts';
import { waitUntil } from './support/polling.ts';
import { recordScanWith } from './support/recordedScan.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

/** Larger than shared_buffers / 4, so the scan reads through the bulk-read ring like a big one. */
const TABLE_BYTES = 48 * 1024 * 1024;
const BLOCK = 8192;

describe('compare of two recorded ranges on a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;
  let scanner: pg.Client;
  let table: DemoTableInfo;
  let running: RunningAioscope;
  let targetId: string;
  let history: HistoryReader;
  const deltas: IoStatDelta[] = [];
  const ranges: { from: number; to: number }[] = [];

  async function compare(query: Record<string, string | number>): Promise<Response> {
    const search = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    return fetch(new URL(`/api/compare?${search.toString()}`, running.url));
  }

  beforeAll(async () => {
    server = await startTestPostgres('compare');
    admin = await connect(server);
    scanner = await connect(server);
    table = await ensureDemoTable(admin, TABLE_BYTES, (relative) => server.resolveDataPath(relative));
    ({ running, targetId, history } = await startWatching(historyConfig(server, await freshDataDir('compare-store'))));
    present([...running.monitors.values()][0], 'a monitor').on('ioDelta', (delta) => deltas.push(delta));
    await scanner.query('SET max_parallel_workers_per_gather = 0');
    await waitUntil(() => deltas.length > 0, 15_000, 'the first pg_stat_io delta');
    const setup = {
      scanner,
      deltas,
      history,
      table: table.name,
      beforeScan: () => makeDemoTableCold(admin, table),
    };
    ranges.push(await recordScanWith(setup, 1), await recordScanWith(setup, 16));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await scanner?.end().catch(() => undefined);
    await admin?.end().catch(() => undefined);
    await server?.stop();
  });

  it('names the 16× larger reads of io_combine_limit 16 against 1 (128 kB instead of 8 kB)', async () => {
    const [single, combined] = ranges;
    if (single === undefined || combined === undefined) throw new Error('both scans ran');
    const response = await compare({
      ...{ aTarget: targetId, aFrom: combined.from, aTo: combined.to },
      ...{ bTarget: targetId, bFrom: single.from, bTo: single.to },
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as CompareResult;
    const combinedPerRead = present(result.a.figures.bytesPerRead?.value, 'bytes per read of A');
    const singlePerRead = present(result.b.figures.bytesPerRead?.value, 'bytes per read of B');
    // What the server did: one block per read with io_combine_limit 1; up to 16 with 16 (a few
    // reads of the range are shorter: the table's end, catalog reads of other backends).
    expect(singlePerRead).toBeGreaterThanOrEqual(BLOCK);
    expect(singlePerRead).toBeLessThan(BLOCK * 1.1);
    expect(combinedPerRead).toBeGreaterThan(12 * BLOCK);
    expect(combinedPerRead).toBeLessThanOrEqual(16 * BLOCK);
    expect(result.a.figures.blocksPerRead?.value).toBeCloseTo(combinedPerRead / BLOCK, 6);
    const ratio = combinedPerRead / singlePerRead;
    const shown = ratio >= 10 ? String(Math.round(ratio)) : String(Math.round(ratio * 10) / 10);
    expect(result.sentence).toMatch(new RegExp(`^reads ${shown}× larger: 1[0-2]\\d(\\.\\d)? kB instead of 8 kB`));
    expect(result.differences[0]).toMatch(/^reads 1[2-6]× larger/);
    // Session settings are not the server's: the settings of both sides are the same.
    expect(result.settingsDiffer).toEqual([]);
    expect(result.a.settingsCaveat).toBeNull();
    expect(result.a.serverVersion).toMatch(/^18/);
    expect(result.a.figures.bytesPerRead?.rate).toBe('1 Hz');
    expect(result.a.scans).not.toBeNull();
    expect(result.a.label).toContain(' UTC (');
  });

  it('compares a range with itself as no difference that matters', async () => {
    const [single] = ranges;
    if (single === undefined) throw new Error('the scan ran');
    const response = await compare({
      ...{ aTarget: targetId, aFrom: single.from, aTo: single.to },
      ...{ bTarget: targetId, bFrom: single.from, bTo: single.to },
    });
    expect(((await response.json()) as CompareResult).sentence).toBe('no difference that matters');
  });

  it('refuses bad parameters with 400 naming the parameter, an unknown target with 404', async () => {
    const good = { aTarget: targetId, aFrom: 1_000, aTo: 2_000, bTarget: targetId, bFrom: 0, bTo: 1_000 };
    const refusal = async (query: Record<string, string | number>): Promise<[number, string]> => {
      const response = await compare(query);
      return [response.status, ((await response.json()) as { error: string }).error];
    };
    const withoutA = Object.fromEntries(Object.entries(good).filter(([key]) => key !== 'aTarget'));
    expect(await refusal(withoutA)).toEqual([400, 'aTarget is missing: the target id of that side']);
    expect(await refusal({ ...good, bFrom: 'yesterday' })).toEqual([400, 'bFrom must be a number (epoch ms)']);
    expect(await refusal({ ...good, aTo: 500 })).toEqual([400, 'aFrom must be before aTo']);
    expect(await refusal({ ...good, bTo: 40 * 24 * 3_600_000 })).toEqual([
      400,
      'range of side b too long: at most 31 d (bFrom to bTo)',
    ]);
    expect(await refusal({ ...good, bTarget: 'nope' })).toEqual([404, 'bTarget: unknown target "nope"']);
  });
});
