import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { buildApp } from '../app/app.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import { ReplaySource } from './replaySource.ts';

const TOKEN = 'metrics-token-0123456789';

/** The app as the process builds it, with the token set: /metrics must be behind it like /api. */
describe('GET /metrics in the app', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    const server = recordedServers().find((candidate) => candidate.name === 'pg19beta3-worker');
    if (server === undefined) throw new Error('no pg19beta3-worker recording');
    const payloads = buildPayloads(server, 'embedded');
    const source = new ReplaySource(payloads.summary, payloads.audit);
    // The app only subscribes and reads summaries here: the replayed target stands in for a monitor.
    const monitors = new Map([[source.id, source as unknown as TargetMonitor]]);
    ({ app } = await buildApp({ monitors, webRoot: '/nonexistent', token: TOKEN }));
    payloads.frames.forEach((frame) => source.emitFrame(frame));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('asks for the token, and accepts it as the bearer header Prometheus sends', async () => {
    const refused = await app.inject({ url: '/metrics' });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).not.toContain('aioscope_');
    const wrong = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer not-the-token-000000' } });
    expect(wrong.statusCode).toBe(401);
    const scraped = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.body).toMatch(/^aioscope_reads_in_flight_max\{target="embedded",target_name="[^"]+"\} \d+$/m);
  });

  it('refuses a malformed scraper name', async () => {
    const reply = await app.inject({
      url: '/metrics?scraper=a%20b',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json<{ error: string }>().error).toMatch(/scraper is 1-32 letters/);
  });
});
