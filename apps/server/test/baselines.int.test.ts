import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_EXPORT_RANGE_MS,
  baselineListSchema,
  baselineSchema,
  openedRecordingSchema,
  type LiveFrame,
} from '@aioscope/spec';
import type { RunningAioscope } from '../src/app/server.ts';
import { DuckDbStoreEngine } from '../src/history/duckdbStoreEngine.ts';
import { readRecording } from '../src/history/recordingFileReader.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { freshDataDir, historyConfig, present, startWatching } from './support/historyTarget.ts';
import { waitUntil } from './support/polling.ts';
import { startTestPostgres } from './support/testPostgres.ts';

const HEADER = 'x-forwarded-user';
/** Behind a trusted auth proxy (inject comes from 127.0.0.1), alice the one operator. */
const PROXY_FLAGS = ['--auth-proxy-header', HEADER, '--trusted-proxy', '127.0.0.1/32', '--operators', 'alice'];
const DAY = 86_400_000;

const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function asUser(running: RunningAioscope, user: string) {
  return (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    running.app.inject({ method, url, headers: { [HEADER]: user }, ...(payload === undefined ? {} : { payload }) });
}

describe('baselines on a real PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;

  beforeAll(async () => {
    server = await startTestPostgres('baselines-pg');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps a marked range through retention that drops all around it; it lists, exports and opens as recorded', async () => {
    const dataDir = await freshDataDir('baselines-history');
    const config = historyConfig(server, dataDir, PROXY_FLAGS);
    const first = await startWatching(config);
    const monitor = present([...first.running.monitors.values()][0], 'a monitor');
    const frames: LiveFrame[] = [];
    monitor.on('frame', (frame) => frames.push(frame));
    let range = { from: 0, to: 0 };
    let baselineId: string;
    try {
      // From a frame carrying the scan map, so the file's first frame needs none added to it.
      await waitUntil(() => frames.some((frame) => frame.scans !== undefined), 10_000, 'a frame with the scan map');
      const from = Math.floor(
        present(
          frames.find((frame) => frame.scans !== undefined),
          'a frame with the scan map',
        ).t,
      );
      range = { from, to: from + 2_000 };
      await waitUntil(async () => ((await first.history.extent()).raw?.to ?? 0) > range.to, 15_000, 'two seconds kept');

      const alice = asUser(first.running, 'alice');
      const bob = asUser(first.running, 'bob');
      const url = `/api/targets/${first.targetId}/baselines`;
      const name = 'before the upgrade';
      // Bad input: the answer names the field, or the limit.
      expect((await alice('POST', url, { from: range.from, to: range.to })).json()).toEqual({
        error: 'name must be text',
      });
      expect((await alice('POST', url, { name: ' ', ...range })).json()).toEqual({ error: 'name must not be empty' });
      expect((await alice('POST', url, { name, from: range.to, to: range.from })).json()).toEqual({
        error: 'from must be before to',
      });
      const tooLong = await alice('POST', url, { name, from: range.from, to: range.from + MAX_EXPORT_RANGE_MS + 1 });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.json<{ error: string }>().error).toMatch(
        /^range too long: a baseline is a recording file, which holds at most 1 h/,
      );
      const empty = await alice('POST', url, { name, from: 1_000, to: 2_000 });
      expect(empty.statusCode).toBe(422);
      expect(empty.json<{ error: string }>().error).toMatch(/^nothing was recorded between 1970-01-01T00:00:01.000Z/);
      expect((await alice('POST', url, { name: 'x'.repeat(2_000), ...range })).statusCode).toBe(413);
      // With --operators, a viewer may not mark.
      const refused = await bob('POST', url, { name, ...range });
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ error: string }>().error).toMatch(
        /^Marking and removing baselines needs the operator role; bob is a viewer/,
      );

      const marked = await alice('POST', url, { name, ...range });
      expect(marked.statusCode, marked.body).toBe(201);
      const baseline = baselineSchema.parse(marked.json());
      baselineId = baseline.id;
      expect(baseline).toMatchObject({ targetId: first.targetId, name, ...range, createdBy: 'alice' });
      expect(baseline.bytes).toBeGreaterThan(0);
      const again = await alice('POST', url, { name, ...range });
      expect(again.statusCode).toBe(409);
      expect(again.json<{ error: string }>().error).toMatch(/already has a baseline named "before the upgrade"/);
    } finally {
      await first.running.close();
    }
    const recorded = overTheWire(frames.filter((frame) => frame.t >= range.from && frame.t < range.to));
    // 2 s at 20 Hz when idle; a busy machine samples less often.
    expect(recorded.length).toBeGreaterThan(5);

    // Retention of the store's own engine, with limits that keep nothing, a day later.
    const engine = new DuckDbStoreEngine(path.join(dataDir, 'history'));
    await engine.open();
    const dropped = await engine.applyRetention({ rawMs: 1, rollupMs: 1, maxBytes: 1 }, Date.now() + DAY);
    await engine.close();
    expect(dropped.droppedRawFrom.length).toBeGreaterThan(0);

    const later = await startWatching(config);
    try {
      const kept = await later.history.frames(range);
      expect(kept.frames).toEqual([]); // the recorder's copy of the range is gone
      const bob = asUser(later.running, 'bob');
      const list = baselineListSchema.parse((await bob('GET', '/api/baselines')).json());
      expect(list.baselines.map((b) => [b.id, b.name, b.from, b.to])).toEqual([
        [baselineId, 'before the upgrade', range.from, range.to],
      ]);

      const exported = await bob('GET', `/api/baselines/${baselineId}/export`);
      expect(exported.statusCode).toBe(200);
      expect(exported.headers['content-disposition']).toMatch(
        /^attachment; filename="aioscope-before-the-upgrade-[a-z0-9-]*-\d{4}-\d\d-\d\dT[\d-]+Z\.aioscope\.gz"$/,
      );
      const file = await readRecording(exported.rawPayload);
      expect(file.header.range).toEqual(range);
      expect(file.frames).toStrictEqual(recorded);

      const opened = await bob('POST', `/api/baselines/${baselineId}/open`);
      expect(opened.statusCode, opened.body).toBe(201);
      const recording = openedRecordingSchema.parse(opened.json());
      expect(recording).toMatchObject({ from: range.from, to: range.to });
      expect(recording.name).toMatch(/ · before the upgrade$/);
      const read = await bob(
        'GET',
        `/api/targets/${recording.targetId}/history/frames?from=${range.from}&to=${range.to}`,
      );
      expect((read.json() as { frames: LiveFrame[] }).frames).toStrictEqual(recorded);

      expect((await bob('DELETE', `/api/baselines/${baselineId}`)).statusCode).toBe(403);
      const alice = asUser(later.running, 'alice');
      expect((await alice('DELETE', `/api/baselines/${baselineId}`)).statusCode).toBe(204);
      expect((await alice('DELETE', `/api/baselines/${baselineId}`)).statusCode).toBe(404);
      expect(baselineListSchema.parse((await bob('GET', '/api/baselines')).json()).baselines).toEqual([]);
    } finally {
      await later.running.close();
    }
  }, 120_000);

  it('says baselines need the history store when recording is off', async () => {
    const running = (await startWatching(historyConfig(server, await freshDataDir('baselines-off'), ['--no-record'])))
      .running;
    try {
      const reason = 'baselines are kept in the history store, and recording is off in this process (--no-record)';
      expect((await running.app.inject('/api/baselines')).json()).toEqual({ baselines: [], unavailable: reason });
      const targetId = present([...running.monitors.keys()][0], 'a target');
      const mark = await running.app.inject({
        method: 'POST',
        url: `/api/targets/${targetId}/baselines`,
        payload: { name: 'x', from: 1_000, to: 2_000 },
      });
      expect(mark.statusCode).toBe(409);
      expect(mark.json()).toEqual({ error: reason });
    } finally {
      await running.close();
    }
  });
});
