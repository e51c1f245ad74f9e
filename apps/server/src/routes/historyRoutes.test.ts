import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readersOfRange, rollup } from '@aioscope/core';
import {
  MAX_RAW_RANGE_MS,
  historyEventsSchema,
  historyExtentSchema,
  historyFramesSchema,
  historyReadersSchema,
  historyRollupsSchema,
} from '@aioscope/spec';
import { buildApp } from '../app/app.ts';
import { SYNTHETIC_START, syntheticHistory, syntheticRecording } from '../history/recordingFileFixture.ts';
import { unstartedMonitor } from '../sampler/unstartedMonitor.ts';

/**
 * The range API over a HistoryReader made from recorded frames (no database): a live target with
 * history ('embedded'), one without ('server'), checked against the spec's schemas.
 */
const DURATION_MS = 20_000;
const recording = syntheticRecording({ durationMs: DURATION_MS });
const from = SYNTHETIC_START;
const to = SYNTHETIC_START + DURATION_MS;
let app: FastifyInstance;

beforeAll(async () => {
  const store = syntheticHistory('embedded', { durationMs: DURATION_MS });
  const monitors = new Map([
    ['embedded', unstartedMonitor('embedded')],
    ['server', unstartedMonitor('server')],
  ]);
  ({ app } = await buildApp({
    monitors,
    webRoot: '/nonexistent',
    history: { get: (id) => (id === 'embedded' ? store : undefined) },
  }));
});
afterAll(async () => {
  await app.close();
});

const get = (url: string): Promise<LightMyRequestResponse> => app.inject({ method: 'GET', url });

describe('history range routes', () => {
  it('serves the extent, raw frames, roll-ups and events in the spec shapes', async () => {
    const extent = historyExtentSchema.parse((await get('/api/targets/embedded/history')).json());
    expect(extent.raw).toEqual({ from, to: recording.frames.at(-1)?.t });

    const frames = historyFramesSchema.parse(
      (await get(`/api/targets/embedded/history/frames?from=${from}&to=${from + 5_000}`)).json(),
    );
    expect(frames.frames).toEqual(recording.frames.filter((frame) => frame.t < from + 5_000));
    expect(frames.processes.length).toBe(10);

    const rollups = historyRollupsSchema.parse(
      (await get(`/api/targets/embedded/history/rollups?from=${from}&to=${to}`)).json(),
    );
    expect(rollups.stepMs).toBe(1_000);
    expect(rollups.points).toEqual(rollup(recording.frames, recording.ioDeltas, from, to, 1_000));
    const wide = historyRollupsSchema.parse(
      (await get(`/api/targets/embedded/history/rollups?from=${from}&to=${to}&stepMs=5000`)).json(),
    );
    expect(wide.stepMs).toBe(5_000);
    expect(wide.points).toEqual(rollup(recording.frames, recording.ioDeltas, from, to, 5_000));
    expect(wide.points.length).toBe(5); // 21:51:05 … 21:51:25: steps are aligned to whole multiples

    const events = historyEventsSchema.parse(
      (await get(`/api/targets/embedded/history/events?from=${from}&to=${to}`)).json(),
    );
    expect(events.events).toEqual(recording.events);
  });

  it('lists who was reading in a range, worked out from the same frames and processes the frames route serves', async () => {
    const range = `from=${from}&to=${from + 5_000}`;
    const readers = historyReadersSchema.parse((await get(`/api/targets/embedded/history/readers?${range}`)).json());
    const recorded = historyFramesSchema.parse((await get(`/api/targets/embedded/history/frames?${range}`)).json());
    const expected = readersOfRange({ ...recorded, blockSize: recording.header.server?.blockSize ?? null });
    expect(readers).toEqual({ targetId: 'embedded', from, to: from + 5_000, ...expected });
    // The recorded demo scan, every cycle of it, in one row (the synthetic range repeats one recording).
    expect(readers.rows[0]?.queryText).toBe('SELECT count(*) FROM aioscope_demo.scan_me');
    expect(readers.rows[0]?.scanBytes).toBeGreaterThan(0);
  });

  it.each([
    ['readers?from=2000&to=1000', 400, 'from must be before to'],
    [`readers?from=0&to=${MAX_RAW_RANGE_MS + 1}`, 400, 'range too long: statements are listed for at most 15 min'],
    ['frames?to=2000', 400, 'from must be a number (epoch ms)'],
    ['frames?from=abc&to=2000', 400, 'from must be a number (epoch ms)'],
    ['frames?from=&to=2000', 400, 'from must be a number (epoch ms)'],
    ['frames?from=-1000&to=2000', 400, 'from must not be negative'],
    ['frames?from=0&to=1e300', 400, 'to is past the last date a clock can show (8640000000000000 ms)'],
    ['frames?from=2000&to=1000', 400, 'from must be before to'],
    ['frames?from=1.5&to=1000', 400, 'from must be whole ms'],
    [`frames?from=0&to=${MAX_RAW_RANGE_MS + 1}`, 400, 'range too long: raw frames are served for at most 15 min'],
    ['rollups?from=0&to=1000&stepMs=1500', 400, 'stepMs must be a multiple of 1000'],
    ['rollups?from=0&to=1000&stepMs=0', 400, 'stepMs must be at least 1000'],
    [`rollups?from=0&to=${32 * 86_400_000}`, 400, 'range too long: roll-ups are served for at most 31 d'],
    [`export?from=0&to=${3_600_001}`, 400, 'range too long: a recording file holds at most 1 h'],
    [
      'export?from=0&to=1000',
      404,
      'nothing was recorded between 1970-01-01T00:00:00.000Z and 1970-01-01T00:00:01.000Z',
    ],
  ])('GET …/history/%s → %i naming what was wrong', async (path, status, message) => {
    const response = await get(`/api/targets/embedded/history/${path}`);
    expect(response.statusCode).toBe(status);
    expect((response.json() as { error: string }).error).toContain(message);
  });

  it('says 404 for an unknown target and for a target whose history is not kept', async () => {
    const unknown = await get(`/api/targets/nope/history/frames?from=${from}&to=${to}`);
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'unknown target "nope"' }]);
    const unrecorded = await get('/api/targets/server/history');
    expect(unrecorded.statusCode).toBe(404);
    expect((unrecorded.json() as { error: string }).error).toMatch(/no history is kept for target "server"/);
    expect((await get('/api/targets/Bad_Id/history')).statusCode).toBe(400);
  });
});
