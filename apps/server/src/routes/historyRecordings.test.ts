import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openedRecordingSchema, targetListSchema } from '@aioscope/spec';
import { buildApp } from '../app/app.ts';
import { authProxyOf } from '../config/accessConfig.ts';
import { SYNTHETIC_START, syntheticHistory } from '../history/recordingFileFixture.ts';

/**
 * Opened recordings behind a team's auth proxy: a recording is its opener's and the operators' to
 * close, so one viewer cannot take away what another opened on the same replica.
 */
const DURATION_MS = 5_000;
const USER_HEADER = 'x-forwarded-user';
let app: FastifyInstance;
let file: Buffer;

beforeAll(async () => {
  const store = syntheticHistory('embedded', { durationMs: DURATION_MS });
  const { prepareRecording } = await import('../history/recordingFileWriter.ts');
  const prepared = await prepareRecording(store, { from: SYNTHETIC_START, to: SYNTHETIC_START + DURATION_MS });
  const chunks: Buffer[] = [];
  for await (const chunk of prepared.stream()) chunks.push(chunk as Buffer);
  file = Buffer.concat(chunks);
  // app.inject comes from 127.0.0.1, the trusted proxy; carol is the one operator.
  const authProxy = authProxyOf({ header: USER_HEADER, trustedProxies: ['127.0.0.1/32'], operators: ['carol'] });
  ({ app } = await buildApp({ monitors: new Map(), webRoot: '/nonexistent', authProxy }));
}, 60_000);
afterAll(async () => {
  await app.close();
});

const as = (user: string): Record<string, string> => ({ [USER_HEADER]: user });
const open = async (user: string): Promise<string> => {
  const response = await app.inject({
    method: 'POST',
    url: `/api/recordings?name=${user}.aioscope.gz`,
    headers: { ...as(user), 'content-type': 'application/gzip' },
    payload: file,
  });
  expect(response.statusCode).toBe(201);
  return openedRecordingSchema.parse(response.json()).targetId;
};
const close = (id: string, user: string): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'DELETE', url: `/api/recordings/${id}`, headers: as(user) });
const openIds = async (): Promise<string[]> =>
  targetListSchema.parse((await app.inject({ url: '/api/targets', headers: as('bob') })).json()).map(({ id }) => id);

// Each upload opens in a child process at the lowest CPU priority: beside other test files it may wait.
describe('closing an opened recording behind an auth proxy', { timeout: 60_000 }, () => {
  it('refuses another viewer with the opener named, and changes nothing', async () => {
    const alices = await open('alice');
    const refused = await close(alices, 'bob');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: `"${alices}" was opened by alice: only they or an operator may close it` });
    expect(await openIds()).toContain(alices);
  });

  it('lets the opener close their own, and an operator close anyone’s', async () => {
    const alices = await open('alice');
    const bobs = await open('bob');
    expect((await close(alices, 'alice')).statusCode).toBe(204);
    expect((await close(bobs, 'carol')).statusCode).toBe(204);
    const left = await openIds();
    expect(left).not.toContain(alices);
    expect(left).not.toContain(bobs);
  });

  it('answers 404 for a recording that is not open, whoever asks', async () => {
    expect((await close('recording-99', 'bob')).statusCode).toBe(404);
  });
});
