import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { historyFramesSchema, openedRecordingSchema, targetListSchema } from '@aioscope/spec';
import { buildApp } from '../app/app.ts';
import { SYNTHETIC_START, syntheticHistory, syntheticRecording } from '../history/recordingFileFixture.ts';
import { readRecording } from '../history/recordingFileReader.ts';
import { csvRow } from '../http/csv.ts';
import { FRAME_CSV_HEADER, ROLLUP_CSV_HEADER } from './historyCsv.ts';

/**
 * Downloads (recording file, CSV) and uploads (POST /api/recordings) through the app, over a
 * history made of recorded frames: what is exported opens again as the same frames.
 */
const DURATION_MS = 20_000;
const recording = syntheticRecording({ durationMs: DURATION_MS });
const from = SYNTHETIC_START;
const to = SYNTHETIC_START + DURATION_MS;
const TOKEN = 'a-token-of-enough-length';
let app: FastifyInstance;
let exported: Buffer;

beforeAll(async () => {
  const store = syntheticHistory('embedded', { durationMs: DURATION_MS });
  // No monitor and no store: a recording needs neither, as under `open FILE`.
  ({ app } = await buildApp({ monitors: new Map(), webRoot: '/nonexistent', token: TOKEN }));
  const opened = await post(await fileOf(store));
  expect(opened.statusCode).toBe(201);
}, 60_000);
afterAll(async () => {
  await app.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };
const get = (url: string): Promise<LightMyRequestResponse> => app.inject({ method: 'GET', url, headers: auth });
const post = (body: Buffer, name = 'colleague.aioscope.gz'): Promise<LightMyRequestResponse> =>
  app.inject({
    method: 'POST',
    url: `/api/recordings?name=${encodeURIComponent(name)}`,
    headers: { ...auth, 'content-type': 'application/gzip' },
    payload: body,
  });

async function fileOf(store: ReturnType<typeof syntheticHistory>): Promise<Buffer> {
  const { prepareRecording } = await import('../history/recordingFileWriter.ts');
  const prepared = await prepareRecording(store, { from, to });
  const chunks: Buffer[] = [];
  for await (const chunk of prepared.stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Each upload opens in a child process under SCHED_IDLE, which gets only a core nothing else wants:
// beside the other test files on two cores it may wait seconds for one.
describe('recording files over HTTP', { timeout: 60_000 }, () => {
  it('opens an uploaded file as a recording target whose frames are the file’s', async () => {
    const targets = targetListSchema.parse((await get('/api/targets')).json());
    expect(targets.map((target) => [target.id, target.kind, target.recording])).toEqual([
      ['recording-1', 'recording', { from, to, fileName: 'colleague.aioscope.gz' }],
    ]);
    const frames = historyFramesSchema.parse(
      (await get(`/api/targets/recording-1/history/frames?from=${from}&to=${to}`)).json(),
    );
    expect(frames.frames).toEqual(recording.frames);
    expect((await get('/api/targets/recording-1/audit')).statusCode).toBe(404);
  });

  it('exports a range as a file named after the target, which reads back to the same frames', async () => {
    const response = await get(`/api/targets/recording-1/history/export?from=${from}&to=${from + 5_000}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/gzip');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="aioscope-pg18-4-embedded-worker-2026-11-29T21-51-07Z\.aioscope\.gz"$/,
    );
    exported = response.rawPayload;
    const loaded = await readRecording(exported);
    expect(loaded.frames).toEqual(recording.frames.filter((frame) => frame.t < from + 5_000));
    expect(loaded.header.range).toEqual({ from, to: from + 5_000 });
  });

  it('refuses a bad file with the reader’s message and changes nothing', async () => {
    const before = (await get('/api/targets')).json() as unknown[];
    const bad = await post(gzipSync('{"format":"something else"}\n'));
    expect([bad.statusCode, bad.json()]).toEqual([
      400,
      { error: 'not an aioscope recording: its first line is not a recording header' },
    ]);
    const truncated = await post(exported.subarray(0, exported.length - 30));
    expect(truncated.statusCode).toBe(400);
    expect((truncated.json() as { error: string }).error).toMatch(/^truncated/);
    expect((await get('/api/targets')).json()).toEqual(before);
    const wrongType = await app.inject({
      method: 'POST',
      url: '/api/recordings',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(wrongType.statusCode).toBe(415);
    const anonymous = await app.inject({
      method: 'POST',
      url: '/api/recordings',
      headers: { 'content-type': 'application/gzip' },
      payload: exported,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('exports CSV: one row per frame for short ranges, per roll-up step for long ones', async () => {
    const raw = await get(`/api/targets/recording-1/history/export.csv?from=${from}&to=${from + 5_000}`);
    expect(raw.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(raw.headers['content-disposition']).toMatch(/2026-11-29T21-51-07Z\.csv"$/);
    const rows = raw.body.split('\r\n').filter(Boolean);
    expect(rows[0]).toBe(csvRow(FRAME_CSV_HEADER).trimEnd());
    expect(rows.length).toBe(1 + 100);
    // The server column first: the name the recording gives its target.
    expect(rows[1]).toMatch(/^pg18\.4-embedded-worker,2026-11-29T21:51:07\.000Z,1795989067000,/);

    const long = await get(`/api/targets/recording-1/history/export.csv?from=${from - 3_600_000}&to=${to}`);
    const longRows = long.body.split('\r\n').filter(Boolean);
    expect(longRows[0]).toBe(csvRow(ROLLUP_CSV_HEADER).trimEnd());
    expect(longRows.length).toBeGreaterThan(1);
    expect(longRows.slice(1).every((row) => row.split(',').length === ROLLUP_CSV_HEADER.length)).toBe(true);
  });

  it('closes an opened recording on DELETE', async () => {
    const opened = openedRecordingSchema.parse((await post(exported, 'second.aioscope.gz')).json());
    expect(opened).toEqual({
      targetId: 'recording-2',
      name: expect.stringContaining('second.aioscope.gz'),
      from,
      to: from + 5_000,
    });
    expect(
      (await app.inject({ method: 'DELETE', url: `/api/recordings/${opened.targetId}`, headers: auth })).statusCode,
    ).toBe(204);
    expect((await get(`/api/targets/${opened.targetId}/history`)).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/api/recordings/recording-2', headers: auth })).statusCode).toBe(
      404,
    );
  });
});
