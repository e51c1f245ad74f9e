/**
 * Writes a history store fixture: apps/server/test/fixtures/history-store-v<STORE_VERSION>/ with
 * `history.duckdb`, recorded by this code the way a running aioscope records (a Recorder writing
 * through HistoryStore, src/history/storeFixture.ts), and `expected.json`, what it must read back:
 * what the store just written answers, checked against the answers of the same synthetic recording
 * held in memory (MemoryHistory: equal, but for the last bits of multi-second means). Nothing in
 * it is written by hand.
 *
 * Run it by deliberate choice, once per release that changes the store, and commit what it wrote:
 *   npx tsx apps/server/scripts/record-history-store-fixture.ts [--force] [--out DIR]
 * A fixture stands for the stores users have on disk: it refuses to overwrite one, and --force
 * (rewriting one to make a test pass) throws away exactly what the fixture test guards. A new
 * store version adds history-store-v<N> beside the older ones, which stay.
 *
 * history-store-v1 was written by the release before store versions (no store_meta table): it is
 * what every existing history.duckdb looks like, and is adopted as version 1 when opened.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { REPO_ROOT } from '../src/config/config.ts';
import { HistoryStore } from '../src/history/historyStore.ts';
import { DuckDbStoreEngine } from '../src/history/duckdbStoreEngine.ts';
import { MemoryHistory } from '../src/history/memoryHistory.ts';
import { STORE_FILE } from '../src/history/storeFile.ts';
import {
  STORE_FIXTURE_LIMITS,
  STORE_FIXTURE_TARGET,
  readBack,
  recordThroughStore,
  sameUpToRounding,
  storeFixtureQueries,
  storeFixtureRecording,
} from '../src/history/storeFixture.ts';
import { STORE_VERSION } from '../src/history/storeMigrations.ts';

const { values } = parseArgs({
  options: { force: { type: 'boolean', default: false }, out: { type: 'string' } },
});
// --out DIR writes elsewhere (to try the script without touching the committed fixtures).
const fixture = path.resolve(
  values.out ?? path.join(REPO_ROOT, `apps/server/test/fixtures/history-store-v${STORE_VERSION}`),
);
if ((await readdir(fixture).catch(() => [])).length > 0 && !values.force) {
  console.error(`${fixture} exists: a fixture is never rewritten (see the comment at the top; --force overrides)`);
  process.exit(1);
}

const recording = storeFixtureRecording();
const queries = storeFixtureQueries(recording);
const work = await mkdtemp(path.join(tmpdir(), 'aioscope-store-fixture-'));
try {
  const written = path.join(work, 'written');
  await recordThroughStore(new DuckDbStoreEngine(written), recording);
  const files = await readdir(written);
  assert.deepEqual(files, [STORE_FILE], 'the store closed cleanly: one file, no WAL');

  // Read back from a copy (opening a store may migrate it): exactly what the recording answers.
  const copy = path.join(work, 'copy');
  await mkdir(copy);
  await copyFile(path.join(written, STORE_FILE), path.join(copy, STORE_FILE));
  const store = await HistoryStore.start({
    engine: new DuckDbStoreEngine(copy),
    limits: STORE_FIXTURE_LIMITS,
    log: console,
  });
  const fromStore = await readBack(
    store.reader(STORE_FIXTURE_TARGET, () => {
      throw new Error('describe() is the live recorder’s; the fixture reads the targets row');
    }),
    () => store.storedDescription(STORE_FIXTURE_TARGET),
    queries,
  );
  await store.close();
  // The recording's own answers; a multi-second roll-up's means may differ in the last bit (the
  // store adds per-second sums, memory adds per frame), so the expected file keeps the store's.
  const memory = new MemoryHistory(STORE_FIXTURE_TARGET, recording);
  const recorded = JSON.parse(JSON.stringify(await readBack(memory, () => memory.describe(), queries))) as unknown;
  if (!sameUpToRounding(fromStore, recorded)) {
    const [read, want] = [path.join(tmpdir(), 'store-read-back.json'), path.join(tmpdir(), 'store-recorded.json')];
    await writeFile(read, JSON.stringify(fromStore, null, 1));
    await writeFile(want, JSON.stringify(recorded, null, 1));
    throw new Error(`the store does not read back what was recorded into it: diff ${read} ${want}`);
  }
  const expected = fromStore;
  assert.ok(
    expected.frames.every((frames) => frames.scansBefore !== null || frames.from === recording.header.range.from),
  );

  await rm(fixture, { recursive: true, force: true });
  await mkdir(fixture, { recursive: true });
  await copyFile(path.join(written, STORE_FILE), path.join(fixture, STORE_FILE));
  const expectedFile = path.join(fixture, 'expected.json');
  const options = (await prettier.resolveConfig(expectedFile)) ?? {};
  await writeFile(expectedFile, await prettier.format(JSON.stringify(expected), { ...options, parser: 'json' }));
  const sizes = await Promise.all([STORE_FILE, 'expected.json'].map((name) => stat(path.join(fixture, name))));
  console.log(
    `wrote ${fixture}: ${STORE_FILE} ${sizes[0]?.size} B, expected.json ${sizes[1]?.size} B ` +
      `(${recording.frames.length} frames, ${recording.ioDeltas.length} deltas, ${recording.processes.length} processes tables, ${recording.events.length} events)`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
