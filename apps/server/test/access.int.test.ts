import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connectSocket } from 'socket.io-client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app/app.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import { waitUntil } from './support/polling.ts';
import { embeddedTarget, startTestPostgres } from './support/testPostgres.ts';
import { trySocket } from './support/trySocket.ts';

const TOKEN = 'test-token-0123456789';

describe('access control and what reaches the browser', () => {
  let server: EmbeddedPostgresServer;
  let monitor: TargetMonitor;
  let app: FastifyInstance;
  let url: string;
  let password: string;

  beforeAll(async () => {
    server = await startTestPostgres('access');
    password = String(server.connectionConfig.password);
    monitor = new TargetMonitor(embeddedTarget(server), { sampleRateHz: 20, demoWorkload: false });
    monitor.start();
    ({ app } = await buildApp({ monitors: new Map([[monitor.id, monitor]]), webRoot: '/nonexistent', token: TOKEN }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    await app?.close();
    await monitor?.stop();
    await server?.stop();
  });

  it('asks for the token on the page and the API, and accepts it as bearer or as the cookie the tokened URL sets', async () => {
    expect((await fetch(`${url}/api/targets`)).status).toBe(401);
    expect((await fetch(`${url}/`)).status).toBe(401);
    const body = (await (await fetch(`${url}/api/targets`)).json()) as { error: string };
    expect(body.error).toMatch(/access token/);
    expect((await fetch(`${url}/api/targets`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(
      (await fetch(`${url}/api/targets`, { headers: { authorization: 'Bearer wrong-token-000000000' } })).status,
    ).toBe(401);
    const opened = await fetch(`${url}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const cookieHeader = cookie.split(';')[0] ?? '';
    expect((await fetch(`${url}/api/targets`, { headers: { cookie: cookieHeader } })).status).toBe(200);
    // The token's holder is an operator (where the lab is allowed), as before team access.
    const me = await fetch(`${url}/api/me`, { headers: { cookie: cookieHeader } });
    expect(await me.json()).toEqual({ user: null, role: 'operator', via: 'token', operatorOnly: null });
  });

  it('answers /api/health without the token, with nothing but that it is up; no other URL passes for it', async () => {
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('{"ok":true}');
    expect((await fetch(`${url}/api/health`, { method: 'HEAD' })).status).toBe(200);
    for (const path of ['/api/health/', '/api/healthz', '/api//health', '/API/health', '/api/targets?x=/api/health'])
      expect((await fetch(`${url}${path}`)).status, path).toBe(401);
    expect((await fetch(`${url}/api/health`, { method: 'POST' })).status).toBe(401);
  });

  it('refuses the socket without the token or from another origin', async () => {
    expect(await trySocket(url)).toMatch(/^refused/);
    expect(await trySocket(url, { authorization: `Bearer ${TOKEN}` })).toBe('connected');
    expect(await trySocket(url, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).toMatch(
      /^refused/,
    );
  });

  it('sends security headers and no CORS permission', async () => {
    const response = await fetch(`${url}/api/targets`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' },
    });
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('never sends the connection password: REST responses and socket payloads', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    // Once the server's info is read the payloads carry everything they will (settings, version).
    await waitUntil(
      () => monitor.currentStatus().state === 'live' && monitor.summary().server !== null,
      15_000,
      'the monitor live with the server info read',
    );
    const bodies: string[] = [];
    for (const path of ['/api/targets', '/api/targets/embedded', '/api/targets/embedded/audit', '/api/health']) {
      const response = await fetch(`${url}${path}`, { headers: auth });
      expect(response.status, path).toBe(200);
      bodies.push(await response.text());
    }
    const payloads: string[] = [];
    const socket = connectSocket(url, { transports: ['websocket'], reconnection: false, extraHeaders: auth });
    try {
      const refused = new Promise<never>((_, reject) => socket.on('connect_error', reject));
      socket.onAny((event: string, payload: unknown) => payloads.push(`${event}:${JSON.stringify(payload)}`));
      socket.on('connect', () => socket.emit('joinTarget', { targetId: 'embedded' }, () => undefined));
      const received = waitUntil(
        () =>
          payloads.some((p) => p.startsWith('snapshot:')) && payloads.filter((p) => p.startsWith('frame:')).length > 5,
        10_000,
        'a snapshot and more than 5 frames',
      );
      await Promise.race([received, refused]);
    } finally {
      socket.disconnect();
    }
    expect(payloads.some((p) => p.startsWith('snapshot:'))).toBe(true);
    expect(payloads.filter((p) => p.startsWith('frame:')).length).toBeGreaterThan(5);
    for (const text of [...bodies, ...payloads]) expect(text).not.toContain(password);
  });
});
