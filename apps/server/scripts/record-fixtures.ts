/**
 * Records the fixtures that core's unit tests parse, from a real embedded PostgreSQL 18 running a
 * cold scan. Run: `npm run record-fixtures` (writes packages/core/fixtures/pg18-*.json).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  FAST_TICK_SQL,
  FAST_TICK_WITHOUT_AIOS_SQL,
  IO_SETTING_NAMES,
  PROCESS_DETAILS_SQL,
  SERVER_INFO_SQL,
  SETTINGS_SQL,
  STAT_IO_SQL_18,
} from '@aioscope/core';
import { REPO_ROOT } from '../src/config/config.ts';
import { DEMO_TABLE } from '@aioscope/core';
import { ensureDemoTable, makeDemoTableCold } from '../src/demo/demoTable.ts';
import { connect, startTestPostgres } from '../test/support/testPostgres.ts';

const FIXTURES = path.join(REPO_ROOT, 'packages/core/fixtures');
const write = (name: string, data: unknown): Promise<void> =>
  writeFile(path.join(FIXTURES, name), `${JSON.stringify(data, null, 1)}\n`);

const server = await startTestPostgres('fixtures');
try {
  const setup = await connect(server);
  const table = await ensureDemoTable(setup, 256 * 1024 * 1024, (relative) => server.resolveDataPath(relative));
  const sampler = await connect(server);
  const scanner = await connect(server);
  await scanner.query('SET max_parallel_workers_per_gather = 0');

  await write('pg18-server-info.json', {
    recordedWith: 'npm run record-fixtures',
    info: (await sampler.query(SERVER_INFO_SQL)).rows[0],
    settings: (await sampler.query(SETTINGS_SQL, [IO_SETTING_NAMES])).rows,
  });
  // Each tick with the PROCESS_DETAILS_SQL rows of its pids, read right after it (as the sampler does).
  const tick = async (): Promise<{ aios: unknown[]; procs: unknown[][]; details: unknown[] }> => {
    const row = (await sampler.query(FAST_TICK_SQL)).rows[0] as { aios: unknown[]; procs: unknown[][] };
    const pids = row.procs.map((process) => process[0]);
    return { ...row, details: (await sampler.query(PROCESS_DETAILS_SQL, [pids])).rows };
  };
  const idle = await tick();
  const statBefore = (await sampler.query(STAT_IO_SQL_18)).rows;

  await makeDemoTableCold(setup, table);
  let done = false;
  const scan = scanner.query(`SELECT count(*) FROM ${DEMO_TABLE}`).then(() => {
    done = true;
  });
  const duringScan: unknown[] = [];
  while (!done) {
    const row = await tick();
    // Keep consecutive samples (identity tracking needs neighbours), up to 40.
    if (duringScan.length < 40 && (row.aios.length > 0 || duringScan.length > 0)) duringScan.push(row);
  }
  await scan;
  // An idle backend flushes pg_stat_io at once, unless it flushed less than 1 s ago: then it waits
  // for its 10 s idle timeout (PGSTAT_IDLE_INTERVAL). Poll until the scan's bulkread reads appear.
  const bulkReads = (rows: { backend_type: string; context: string; reads: number | null }[]): number =>
    rows
      .filter((r) => r.backend_type === 'client backend' && r.context === 'bulkread')
      .reduce((s, r) => s + Number(r.reads ?? 0), 0);
  let statAfter = (await sampler.query(STAT_IO_SQL_18)).rows;
  for (let waited = 0; bulkReads(statAfter) === bulkReads(statBefore) && waited < 15_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    statAfter = (await sampler.query(STAT_IO_SQL_18)).rows;
  }
  await sampler.query('SELECT pg_stat_reset_shared($1)', ['io']);
  const statAfterReset = (await sampler.query(STAT_IO_SQL_18)).rows;
  const withoutAios = (await sampler.query(FAST_TICK_WITHOUT_AIOS_SQL)).rows[0];

  await makeDemoTableCold(setup, table);
  await scanner.query('SET track_io_timing = on');
  const explain = (
    await scanner.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*) FROM ${DEMO_TABLE}`)
  ).rows[0] as { 'QUERY PLAN': unknown };
  await write('pg18-explain.json', {
    recordedWith: 'npm run record-fixtures',
    tableBytes: table.relationBytes,
    plan: explain['QUERY PLAN'],
  });

  await write('pg18-fast-tick.json', { recordedWith: 'npm run record-fixtures', idle, duringScan, withoutAios });
  await write('pg18-stat-io.json', {
    recordedWith: 'npm run record-fixtures',
    tableBytes: table.relationBytes,
    before: statBefore,
    afterScan: statAfter,
    afterReset: statAfterReset,
  });
  for (const client of [setup, sampler, scanner]) await client.end();
  console.log(`recorded ${duringScan.length} fast-tick samples during a cold scan of ${table.relationBytes} bytes`);
} finally {
  await server.stop();
}
