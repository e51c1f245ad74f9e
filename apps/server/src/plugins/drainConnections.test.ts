import http from 'node:http';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DRAIN_GRACE_MS, drainConnectionsPlugin } from './drainConnections.ts';

/** A GET over a keep-alive agent, as a browser makes it: the connection outlives the answer. */
function get(url: string, agent: http.Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
        );
      })
      .on('error', reject);
  });
}

describe('drainConnectionsPlugin', () => {
  const agent = new http.Agent({ keepAlive: true });
  afterEach(() => agent.destroy());

  async function serverWithSlowRoute(answerAfterMs: number): Promise<{ app: ReturnType<typeof Fastify>; url: string }> {
    const app = Fastify();
    await app.register(drainConnectionsPlugin);
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { app, url };
  }

  it('lets a request running at the stop finish, closes its connection, and stops at once', async () => {
    const { app, url } = await serverWithSlowRoute(300);
    // A connection already kept alive by an earlier answer, as a page's is.
    expect((await get(`${url}/fast`, agent)).status).toBe(200);
    const running = get(`${url}/slow`, agent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopStarted = Date.now();
    const closed = app.close();
    const answer = await running;
    await closed;
    expect(answer).toEqual({ status: 200, connection: 'close' });
    // Without the plugin the kept-alive connection holds the close for Fastify's 72 s keep-alive.
    expect(Date.now() - stopStarted).toBeLessThan(DRAIN_GRACE_MS);
  });

  it('cuts a request that is still running after the grace', async () => {
    const { app, url } = await serverWithSlowRoute(60_000);
    const running = get(`${url}/slow`, agent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopStarted = Date.now();
    await app.close();
    await expect(running).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(Date.now() - stopStarted).toBeGreaterThanOrEqual(DRAIN_GRACE_MS - 50);
  }, 10_000);
});
