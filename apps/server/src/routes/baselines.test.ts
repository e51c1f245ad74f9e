import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BASELINE_NAME_LENGTH, baselineListSchema, baselineSchema, openedRecordingSchema } from '@aioscope/spec';
import { buildApp } from '../app/app.ts';
import { authProxyOf } from '../config/accessConfig.ts';
import { DuckDbStoreEngine } from '../history/duckdbStoreEngine.ts';
import { SYNTHETIC_START, syntheticHistory } from '../history/recordingFileFixture.ts';
import { unstartedMonitor } from '../sampler/unstartedMonitor.ts';

/**
 * Baselines as a careless user or an attacker would send them: every refusal says why and keeps
 * nothing. The recorded range is a synthetic history; the baselines are kept in a real embedded
 * store (DuckDB in a temporary folder), as under `aioscope --embedded`.
 */
const DURATION_MS = 10_000;
const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + 4_000 };
const url = '/api/targets/embedded/baselines';
let folder: string;
let engine: DuckDbStoreEngine;
let app: FastifyInstance;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'aioscope-baselines-'));
  engine = new DuckDbStoreEngine(path.join(folder, 'history'));
  await engine.open();
  const store = syntheticHistory('embedded', { durationMs: DURATION_MS });
  ({ app } = await buildApp({
    monitors: new Map([['embedded', unstartedMonitor('embedded')]]),
    webRoot: '/nonexistent',
    history: { get: (id) => (id === 'embedded' ? store : undefined), baselines: engine },
  }));
}, 60_000);
afterAll(async () => {
  await app?.close();
  await engine?.close();
  await rm(folder, { recursive: true, force: true });
});

const mark = (payload: unknown): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url, payload: payload as object });
const errorOf = (response: LightMyRequestResponse): string => response.json<{ error: string }>().error;
const kept = async (): Promise<string[]> =>
  baselineListSchema.parse((await app.inject('/api/baselines')).json()).baselines.map((baseline) => baseline.name);

describe('marking a baseline refuses what is not one, and keeps nothing', { timeout: 60_000 }, () => {
  it.each([
    ['an empty name', { name: '', ...range }, 'name must not be empty'],
    ['a name of spaces only', { name: '   ', ...range }, 'name must not be empty'],
    [
      'a name over the limit',
      { name: 'x'.repeat(MAX_BASELINE_NAME_LENGTH + 1), ...range },
      `name is longer than ${MAX_BASELINE_NAME_LENGTH} characters`,
    ],
    ['a name with a NUL', { name: 'before\u0000after', ...range }, 'name must not contain control characters'],
    ['a name with a line break', { name: 'before\nafter', ...range }, 'name must not contain control characters'],
    ['a name with an escape sequence', { name: '\u001b[31mred', ...range }, 'name must not contain control characters'],
    ['a name that is not text', { name: 42, ...range }, 'name must be text'],
    ['from after to', { name: 'n', from: range.to, to: range.from }, 'from must be before to'],
    ['from equal to to', { name: 'n', from: range.from, to: range.from }, 'from must be before to'],
    ['NaN (null in JSON)', { name: 'n', from: null, to: range.to }, 'from must be a number (epoch ms)'],
    ['a number as text', { name: 'n', from: String(range.from), to: range.to }, 'from must be a number (epoch ms)'],
    ['a negative from', { name: 'n', from: -1_000, to: range.to }, 'from must not be negative'],
    ['a fraction of a ms', { name: 'n', from: range.from + 0.5, to: range.to }, 'from must be whole ms'],
  ])('%s', async (_case, payload, error) => {
    const response = await mark(payload);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toBe(error);
    expect(await kept()).toEqual([]);
  });

  it('refuses a range that ends in the future, however far, saying so', async () => {
    for (const to of [Date.now() + 60_000, 8.64e15, Number.MAX_SAFE_INTEGER]) {
      const response = await mark({ name: 'n', from: to - 1_000, to });
      expect(response.statusCode).toBe(400);
      expect(errorOf(response)).toMatch(
        /^to is in the future.*: a baseline keeps what was recorded, so end its range at /,
      );
    }
    expect(await kept()).toEqual([]);
  });

  it('refuses a range past the hour a recording file holds, and one with nothing recorded', async () => {
    const long = await mark({ name: 'n', from: range.from, to: range.from + 3_600_001 });
    expect(long.statusCode).toBe(400);
    expect(errorOf(long)).toMatch(/^range too long: a baseline is a recording file, which holds at most 1 h/);
    const empty = await mark({ name: 'n', from: 1_000, to: 2_000 });
    expect(empty.statusCode).toBe(422);
    expect(errorOf(empty)).toBe(
      'nothing was recorded between 1970-01-01T00:00:01.000Z and 1970-01-01T00:00:02.000Z: no baseline to keep',
    );
    expect(await kept()).toEqual([]);
  });

  it('refuses a body that is too large, not JSON, or of another type, and an unknown target', async () => {
    const huge = await mark({ name: 'x'.repeat(10_000), ...range });
    expect(huge.statusCode).toBe(413);
    expect(errorOf(huge)).toMatch(/too large/i);
    const text = await app.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'n' });
    expect(text.statusCode).toBe(415);
    expect(errorOf(text)).toMatch(/content-type/i);
    const broken = await app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(broken.statusCode).toBe(400);
    expect(errorOf(broken)).toMatch(/JSON/);
    const unknown = await app.inject({ method: 'POST', url: '/api/targets/nowhere/baselines', payload: range });
    expect(unknown.statusCode).toBe(404);
    expect(await kept()).toEqual([]);
  });

  it('keeps a unicode name as written, and refuses the same name again for the target', async () => {
    const name = 'før opgradering · 升级前 🚀';
    const first = await mark({ name: ` ${name} `, ...range });
    expect(first.statusCode, first.body).toBe(201);
    expect(baselineSchema.parse(first.json()).name).toBe(name);
    const again = await mark({ name, from: range.from + 1_000, to: range.to });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again)).toMatch(/already has a baseline named "før opgradering · 升级前 🚀": choose another name$/);
    expect(await kept()).toEqual([name]);
  });
});

describe('a baseline named by a bad id', () => {
  it.each([
    ['GET', 'export'],
    ['POST', 'open'],
    ['DELETE', ''],
  ] as const)('%s …/%s: a malformed id is 400, an unknown one 404', async (method, action) => {
    const at = (id: string): string => `/api/baselines/${id}${action === '' ? '' : `/${action}`}`;
    const before = await kept();
    for (const id of ['..%2F..%2Fetc', 'baseline-XYZ', `baseline-${'a'.repeat(80)}`, '%00']) {
      const response = await app.inject({ method, url: at(id) });
      expect(response.statusCode, id).toBe(400);
      expect(errorOf(response)).toMatch(/^baseline id/);
    }
    // Past the router's limit on a path parameter (100 characters): refused before the route.
    expect((await app.inject({ method, url: at(`baseline-${'a'.repeat(200)}`) })).statusCode).toBe(414);
    const unknown = await app.inject({ method, url: at('baseline-00000000-0000-0000-0000-000000000000') });
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown)).toBe('no baseline "baseline-00000000-0000-0000-0000-000000000000"');
    expect(await kept()).toEqual(before);
  });
});

describe('opening a baseline', { timeout: 90_000 }, () => {
  it('twice answers the recording already open, not a second copy; deleting it leaves that recording open', async () => {
    const marked = await mark({ name: 'opened twice', ...range });
    expect(marked.statusCode, marked.body).toBe(201);
    const { id } = baselineSchema.parse(marked.json());
    const first = await app.inject({ method: 'POST', url: `/api/baselines/${id}/open` });
    expect(first.statusCode, first.body).toBe(201);
    const opened = openedRecordingSchema.parse(first.json());
    const second = await app.inject({ method: 'POST', url: `/api/baselines/${id}/open` });
    expect(second.statusCode, second.body).toBe(200);
    expect(openedRecordingSchema.parse(second.json())).toEqual(opened);
    const recordings = (await app.inject('/api/targets')).json<{ kind: string }[]>();
    expect(recordings.filter((target) => target.kind === 'recording')).toHaveLength(1);

    expect((await app.inject({ method: 'DELETE', url: `/api/baselines/${id}` })).statusCode).toBe(204);
    expect(await kept()).not.toContain('opened twice');
    const read = await app.inject(`/api/targets/${opened.targetId}/history/frames?from=${range.from}&to=${range.to}`);
    expect(read.statusCode).toBe(200);
  });
});

describe('with the store closed (recording paused)', () => {
  it('says the store is not open, on every route, and keeps nothing', async () => {
    const listed = baselineListSchema.parse((await app.inject('/api/baselines')).json()).baselines;
    const [some] = listed;
    await engine.close();
    try {
      const list = await app.inject('/api/baselines');
      expect(list.statusCode).toBe(503);
      expect(list.json()).toEqual({ baselines: [], unavailable: expect.stringMatching(/is not open$/) });
      const marked = await mark({ name: 'while paused', ...range });
      expect(marked.statusCode).toBe(503);
      expect(errorOf(marked)).toMatch(/is not open$/);
      if (some !== undefined) {
        for (const [method, at] of [
          ['GET', `/api/baselines/${some.id}/export`],
          ['POST', `/api/baselines/${some.id}/open`],
          ['DELETE', `/api/baselines/${some.id}`],
        ] as const) {
          const response = await app.inject({ method, url: at });
          expect(response.statusCode, at).toBe(503);
          expect(errorOf(response)).toMatch(/is not open$/);
        }
      }
    } finally {
      await engine.open();
    }
    expect(baselineListSchema.parse((await app.inject('/api/baselines')).json()).baselines).toEqual(listed);
  });
});

describe('behind an auth proxy without --operators, a baseline is its marker’s to remove', { timeout: 60_000 }, () => {
  let proxied: FastifyInstance;
  beforeAll(async () => {
    const store = syntheticHistory('embedded', { durationMs: DURATION_MS });
    ({ app: proxied } = await buildApp({
      monitors: new Map([['embedded', unstartedMonitor('embedded')]]),
      webRoot: '/nonexistent',
      history: { get: (id) => (id === 'embedded' ? store : undefined), baselines: engine },
      // app.inject comes from 127.0.0.1, the trusted proxy; nobody is an operator.
      authProxy: authProxyOf({ header: 'x-forwarded-user', trustedProxies: ['127.0.0.1/32'], operators: [] }),
    }));
  });
  afterAll(async () => {
    await proxied?.close();
  });
  const as = (user: string, method: 'POST' | 'DELETE', target: string, payload?: object) =>
    proxied.inject({
      method,
      url: target,
      headers: { 'x-forwarded-user': user },
      ...(payload === undefined ? {} : { payload }),
    });

  it('refuses another viewer with the marker named and keeps it; the marker removes it', async () => {
    const marked = await as('alice', 'POST', url, { name: 'alice before', ...range });
    expect(marked.statusCode).toBe(201);
    const { id } = baselineSchema.parse(marked.json());
    const refused = await as('bob', 'DELETE', `/api/baselines/${id}`);
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused)).toBe('"alice before" was marked by alice: only they or an operator may remove it');
    expect(await kept()).toContain('alice before');
    expect((await as('alice', 'DELETE', `/api/baselines/${id}`)).statusCode).toBe(204);
    expect(await kept()).not.toContain('alice before');
  });
});
