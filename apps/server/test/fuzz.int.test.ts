import http from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { Server as SocketServer } from 'socket.io';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { buildApp } from '../src/app/app.ts';
import { TargetMonitor } from '../src/sampler/targetMonitor.ts';
import {
  headerSafe,
  inUrl,
  integer,
  junkNumber,
  junkString,
  junkValue,
  mulberry32,
  pick,
  type Rng,
} from './support/junk.ts';
import { connectViewer, joinAs, type Viewer, type ViewerSocket } from './support/liveViewer.ts';
import { sleep, waitUntil, withTimeout } from './support/polling.ts';
import { runCli, waitForUrl } from './support/cliProcess.ts';
import { RawSocketIoClient } from './support/rawSocketIo.ts';
import { connect, startTestPostgres } from './support/testPostgres.ts';

const SEED = 0xa10c0de;
const INPUTS = 300;
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
/** The transport's limit on one client message (liveHub MAX_CLIENT_MESSAGE_BYTES). */
const MAX_CLIENT_MESSAGE_BYTES = 4_096;

interface Outcome {
  method: string;
  url: string;
  status: number;
  body: string;
}

/** Objects a request could create: any change means input reached the database as SQL. */
async function catalogCounts(client: pg.Client): Promise<Record<string, number>> {
  const row = (
    await client.query<{ classes: number; roles: number; namespaces: number }>(
      `SELECT (SELECT count(*) FROM pg_class)::int AS classes, (SELECT count(*) FROM pg_roles)::int AS roles,
              (SELECT count(*) FROM pg_namespace)::int AS namespaces`,
    )
  ).rows[0];
  if (row === undefined) throw new Error('no catalog counts');
  return { ...row };
}

function junkPid(rng: Rng, realPids: number[]): string {
  const roll = rng();
  if (roll < 0.15 && realPids.length > 0) return String(pick(rng, realPids));
  if (roll < 0.5) return String(junkNumber(rng));
  return junkString(rng);
}

function junkTargetId(rng: Rng): string {
  return rng() < 0.25 ? 'test' : junkString(rng);
}

function junkQuery(rng: Rng): string {
  if (rng() < 0.4) return '';
  const pairs = Array.from(
    { length: integer(rng, 1, 4) },
    () => `${inUrl(rng, junkString(rng))}=${inUrl(rng, junkString(rng))}`,
  );
  return `?${pairs.join(pick(rng, ['&', ';', '&&']))}`;
}

function junkHeaders(rng: Rng): Record<string, string> {
  const headers: Record<string, string> = {};
  const names = [
    'accept',
    'accept-language',
    'accept-encoding',
    'authorization',
    'cookie',
    'origin',
    'referer',
    'user-agent',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-http-method-override',
    'if-none-match',
    'range',
    `x-junk-${integer(rng, 0, 9)}`,
  ];
  for (let i = 0; i < integer(rng, 0, 4); i++) headers[pick(rng, names)] = headerSafe(junkString(rng));
  return headers;
}

/** A junk body with a content type that may or may not match it. */
function junkBody(rng: Rng): { payload: string; contentType: string | undefined } {
  const roll = rng();
  if (roll < 0.35) return { payload: JSON.stringify(junkValue(rng)) ?? 'null', contentType: 'application/json' };
  if (roll < 0.45) return { payload: '{"targetId": "test", ', contentType: 'application/json' };
  if (roll < 0.5) return { payload: '{"__proto__": {"polluted": true}}', contentType: 'application/json' };
  if (roll < 0.55) return { payload: 'x'.repeat(70 * 1024), contentType: 'application/json' }; // over bodyLimit
  if (roll < 0.65) return { payload: junkString(rng), contentType: 'text/plain' };
  if (roll < 0.75) return { payload: `a=${junkString(rng)}`, contentType: 'application/x-www-form-urlencoded' };
  if (roll < 0.85) return { payload: junkString(rng), contentType: headerSafe(junkString(rng)) };
  return { payload: junkString(rng), contentType: undefined };
}

/**
 * The same request over a real socket, for the URLs light-my-request refuses to build (e.g. paths
 * starting with '//' that its URL parser reads as a host) but an HTTP client can send.
 */
async function overHttp(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ method, url: path, status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${path.slice(0, 200)} timed out`)));
    request.on('error', reject);
    request.end(payload);
  });
}

function expectWellFormedError(outcome: Outcome): void {
  const where = `${outcome.method} ${outcome.url.slice(0, 200)} → ${outcome.status}`;
  expect(outcome.status, where).toBeLessThan(500);
  if (outcome.status < 400 || outcome.method === 'HEAD') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.body);
  } catch {
    throw new Error(`${where}: the error body is not JSON: ${outcome.body.slice(0, 200)}`);
  }
  expect(typeof (parsed as { error?: unknown } | null)?.error, `${where}: ${outcome.body.slice(0, 200)}`).toBe(
    'string',
  );
}

describe('fuzzing the REST routes and socket events of a real app', () => {
  let server: EmbeddedPostgresServer;
  let admin: pg.Client;
  let monitor: TargetMonitor;
  let app: FastifyInstance;
  let io: SocketServer;
  let url: string;
  let port: number;
  let password: string;
  let good: Viewer;
  let goodId: string | undefined;
  let before: Record<string, number>;

  beforeAll(async () => {
    server = await startTestPostgres('fuzz');
    admin = await connect(server);
    password = String(server.connectionConfig.password);
    monitor = new TargetMonitor(
      { id: 'test', name: 'test', kind: 'embedded', clientConfig: server.connectionConfig },
      { sampleRateHz: 20, demoWorkload: false },
    );
    monitor.start();
    ({ app, io } = await buildApp({ monitors: new Map([[monitor.id, monitor]]), webRoot: '/nonexistent' }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}`;
    await waitUntil(() => monitor.currentStatus().state === 'live', 10_000, 'the monitor to be live');
    before = await catalogCounts(admin);
    good = await connectViewer(url);
    goodId = good.socket.id;
    expect((await joinAs(good, 'test')).reply).toEqual({ ok: true });
    await waitUntil(() => good.frames.length >= 5, 5_000, 'frames for the well-behaved viewer');
  });

  afterAll(async () => {
    good?.close();
    await app?.close();
    await monitor?.stop();
    await admin?.end();
    await server?.stop();
  });

  it(`answers ${INPUTS} junk inputs on every REST route with < 500 and JSON errors, leaking no password`, async () => {
    const rng = mulberry32(SEED);
    const realPids = (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity')).rows.map((r) => r.pid);
    const outcomes: Outcome[] = [];
    let overRealHttp = 0;
    const templates: ((rng: Rng) => string)[] = [
      () => '/api/targets',
      (r) => `/api/targets/${inUrl(r, junkTargetId(r))}`,
      (r) => `/api/targets/${inUrl(r, junkTargetId(r))}/processes/${inUrl(r, junkPid(r, realPids))}`,
      (r) => `/api/targets/${inUrl(r, junkTargetId(r))}/audit`,
      () => '/api/health',
      (r) => `/api/${inUrl(r, junkString(r))}`,
      (r) => `/${inUrl(r, junkString(r))}`,
      (r) => `/api/targets/${inUrl(r, junkTargetId(r))}/${inUrl(r, junkString(r))}/${inUrl(r, junkString(r))}`,
      (r) => `/api/targets/test/processes/${inUrl(r, junkPid(r, realPids))}/${inUrl(r, junkString(r))}`,
    ];
    for (let input = 0; input < INPUTS; input++) {
      for (const template of templates) {
        const method = pick(rng, METHODS);
        const target = template(rng) + junkQuery(rng);
        const headers = junkHeaders(rng);
        const withBody = method !== 'GET' && method !== 'HEAD' ? rng() < 0.8 : rng() < 0.1;
        const body = withBody ? junkBody(rng) : null;
        if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
        let outcome: Outcome;
        try {
          const response = await withTimeout(
            app.inject({ method, url: target, headers, ...(body === null ? {} : { payload: body.payload }) }),
            10_000,
            `${method} ${target.slice(0, 200)}`,
          );
          outcome = { method, url: target, status: response.statusCode, body: response.body };
        } catch (error) {
          if (!(error instanceof TypeError && error.message === 'Invalid URL')) throw error;
          outcome = await overHttp(port, method, target, headers, body?.payload);
          overRealHttp++;
        }
        outcomes.push(outcome);
      }
    }

    for (const outcome of outcomes) {
      expectWellFormedError(outcome);
      expect(outcome.body.includes(password), `${outcome.method} ${outcome.url} leaks the password`).toBe(false);
    }
    const byStatus = new Map<number, number>();
    for (const { status } of outcomes) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    console.info(
      `REST fuzz: ${outcomes.length} requests (${overRealHttp} over real HTTP), by status ${JSON.stringify(Object.fromEntries(byStatus))}`,
    );
    // The fuzzing reached past validation too, not only the router's 404.
    expect(byStatus.get(200) ?? 0).toBeGreaterThan(0);
    expect(byStatus.get(400) ?? 0).toBeGreaterThan(0);
    expect(byStatus.get(404) ?? 0).toBeGreaterThan(0);

    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.json()).toEqual({ ok: true });
  });

  it('keeps a well-behaved viewer streaming while another client throws junk at every socket event', async () => {
    const rng = mulberry32(SEED ^ 0x5eed);
    const replies: unknown[] = [];
    const fuzzers: ViewerSocket[] = [];
    const raws: RawSocketIoClient[] = [];
    let fuzzer: Viewer | null = null;
    let raw: RawSocketIoClient | null = null;
    let bigPayloadDisconnects = 0;
    const fuzzerDisconnects: string[] = [];
    const events = ['joinTarget', 'joinTarget', 'leaveTarget', 'snapshot', 'frame', 'status', 'message', 'x'];
    const reserved = ['connect', 'disconnect', 'disconnecting', 'error', 'newListener', 'removeListener'];
    const rawPackets = (r: Rng): string => {
      const value = JSON.stringify(junkValue(r)) ?? 'null';
      return pick(r, [
        `42${JSON.stringify([pick(r, reserved), junkValue(r)])}`,
        `42["joinTarget",${value}]`,
        `4${integer(r, 0, 999)}["joinTarget",${value}]`,
        `43${integer(r, 0, 99)}[${value}]`,
        `451-["joinTarget",{"_placeholder":true,"num":${JSON.stringify(junkValue(r)) ?? '0'}}]`,
        `452-["joinTarget",{"_placeholder":true,"num":0}]`,
        '42["joinTarget",',
        `42${value}`,
        `4${value}`,
        `40${value}`,
        `41${value}`,
        `44${value}`,
        `4/${junkString(r)},42["joinTarget",{"targetId":"test"}]`,
        pick(r, ['0', '1', '2', '3', '5', '6', '2probe', '3probe', '7', '']),
        junkString(r),
      ]);
    };

    const framesBefore = good.frames.length;
    for (let input = 0; input < INPUTS; input++) {
      // socket.io-client: well-formed packets with junk event names and payloads.
      if (fuzzer === null || !fuzzer.socket.connected) {
        fuzzer = await connectViewer(url);
        fuzzers.push(fuzzer.socket);
        fuzzer.socket.on('disconnect', (reason) => fuzzerDisconnects.push(reason));
      }
      const event = rng() < 0.7 ? pick(rng, events) : junkString(rng);
      const argCount = event === 'joinTarget' && rng() < 0.7 ? 1 : integer(rng, 0, 3);
      const args: unknown[] = Array.from({ length: argCount }, () =>
        rng() < 0.1 ? Buffer.from(junkString(rng)) : junkValue(rng),
      );
      if (input % 50 === 7) args.splice(0, args.length, { targetId: 'x'.repeat(MAX_CLIENT_MESSAGE_BYTES + 1_000) });
      const emitter = fuzzer.socket as unknown as {
        emit: (event: string, ...args: unknown[]) => void;
        timeout: (ms: number) => { emit: (event: string, ...args: unknown[]) => void };
      };
      // A join with one payload that fits in a message must always be answered, junk or not.
      const mustAnswer =
        event === 'joinTarget' &&
        args.length === 1 &&
        (JSON.stringify(args) ?? '').length < MAX_CLIENT_MESSAGE_BYTES / 2;
      try {
        if (mustAnswer) {
          const shown = inspect(args).slice(0, 300);
          const answering = fuzzer;
          const reply = await new Promise<unknown>((resolve) =>
            emitter
              .timeout(2_000)
              .emit(event, ...args, (error: unknown, answer: unknown) =>
                resolve(
                  error === null
                    ? answer
                    : { unanswered: String(error), payload: shown, connected: answering.socket.connected },
                ),
              ),
          );
          // A join sent just after an oversized message shares that connection's fate: not counted.
          if ((reply as { connected?: boolean } | null)?.connected !== false) replies.push(reply);
        } else if (rng() < 0.3) {
          emitter.timeout(1_000).emit(event, ...args, () => undefined);
        } else {
          emitter.emit(event, ...args);
        }
      } catch (error) {
        // socket.io-client refuses reserved event names itself; the raw client sends those.
        expect(String(error)).toMatch(/reserved event name/);
      }
      if (input % 50 === 7) {
        const oversized = fuzzer;
        await waitUntil(() => !oversized.socket.connected, 5_000, 'the oversized message to close its connection');
        bigPayloadDisconnects++;
      }

      // A bare websocket: malformed engine.io and socket.io packets, with and without a handshake.
      if (raw === null || !raw.isOpen) {
        raw = await RawSocketIoClient.connect(port, rng() < 0.8);
        raws.push(raw);
      }
      raw.send(rng() < 0.05 ? Buffer.from(junkString(rng)) : rawPackets(rng));
      if (input % 10 === 0) await sleep(10);
    }

    // Every reply to a junk join is either a join or a refusal that says why.
    for (const reply of replies) {
      const shaped =
        (reply as { ok?: unknown })?.ok === true ||
        ((reply as { ok?: unknown })?.ok === false && typeof (reply as { error?: unknown }).error === 'string');
      expect(shaped, JSON.stringify(reply)).toBe(true);
      expect(JSON.stringify(reply).includes(password)).toBe(false);
    }
    expect(replies.length, 'junk joins sent with an acknowledgement').toBeGreaterThanOrEqual(20);
    expect(bigPayloadDisconnects).toBe(Math.ceil(INPUTS / 50));
    const reasons = new Map<string, number>();
    for (const reason of fuzzerDisconnects) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    console.info(
      `socket fuzz: ${fuzzers.length} socket.io clients (disconnected: ${JSON.stringify(Object.fromEntries(reasons))}), ` +
        `${raws.length} raw websockets (close codes ${[...new Set(raws.map((r) => r.closeCode))].join(', ')}), ` +
        `${replies.length} join replies`,
    );

    for (const socket of fuzzers) socket.disconnect();
    for (const client of raws) client.close();
    // Nothing of the junk clients stays behind on the server.
    await waitUntil(() => io.engine.clientsCount === 1, 5_000, 'only the well-behaved client to remain');

    const after = Date.now();
    await waitUntil(() => good.frames.some((f) => f.receivedAt > after), 3_000, 'frames after the fuzzing');
    expect(good.frames.length).toBeGreaterThan(framesBefore);
    expect(good.disconnects, 'the well-behaved viewer was never disconnected').toEqual([]);
    expect(good.socket.connected).toBe(true);
    expect(good.socket.id).toBe(goodId);
    for (const payload of good.received) expect(payload.includes(password)).toBe(false);
  });

  // Regression (was a bug in apps/server/src/live/liveHub.ts, createLiveHub 'joinTarget' handler): the handler takes
  // its acknowledgement as the second argument, but socket.io passes it as the last one. A join
  // sent with no payload arrives as (ack, undefined): the ack is parsed as the payload, the reply
  // is a no-op, and the client waits for an answer that never comes (extra arguments likewise).
  it('answers a join request that has no payload', async () => {
    const viewer = await connectViewer(url);
    try {
      const untyped = viewer.socket as unknown as {
        timeout: (ms: number) => { emitWithAck: (event: string) => Promise<unknown> };
      };
      const reply = await untyped.timeout(1_000).emitWithAck('joinTarget');
      expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/joinTarget/) as unknown });
    } finally {
      viewer.close();
    }
  });

  it('answers engine.io junk over real HTTP with < 500', async () => {
    const rng = mulberry32(SEED ^ 0xe1);
    for (let input = 0; input < 30; input++) {
      const query = `EIO=${inUrl(rng, pick(rng, ['4', '3', junkString(rng)]))}&transport=${inUrl(
        rng,
        pick(rng, ['polling', 'websocket', junkString(rng)]),
      )}${rng() < 0.5 ? `&sid=${inUrl(rng, junkString(rng))}` : ''}`;
      const response = await fetch(`${url}/socket.io/?${query}`, {
        method: pick(rng, ['GET', 'POST', 'PUT']),
        signal: AbortSignal.timeout(5_000),
      }).catch((error: unknown) => error as Error);
      if (response instanceof Error) throw new Error(`/socket.io/?${query}: ${response.message}`);
      const body = await response.text();
      expect(response.status, `/socket.io/?${query}`).toBeLessThan(500);
      expect(body.includes(password)).toBe(false);
    }
  });

  // Regression (was a bug in apps/server/src/http/access.ts, cookieValue): decodeURIComponent on the cookie value
  // throws URIError on a malformed percent-escape. Over REST the onRequest hook turns it into a 500;
  // in socket.io's allowRequest (liveHub.ts → requestHasToken) the throw happens synchronously
  // inside engine.io's 'request'/'upgrade' listener and is uncaught: any unauthenticated client
  // that can reach the port kills the whole process with `Cookie: aioscope_token=%zz`. Runs the
  // real command line so the crash takes down a child process, not the test runner.
  it('refuses malformed token cookies with 401/403 and keeps running (--token)', async () => {
    const token = 'fuzz-token-0123456789';
    const { host, port: pgPort, user, password: pgPassword, database } = server.connectionConfig;
    const db = `postgres://${String(user)}:${encodeURIComponent(String(pgPassword))}@${String(host)}:${String(pgPort)}/${String(database)}`;
    const run = runCli(['--db', db, '--port', '0', '--rate', '5', '--token', token, '--log-level', 'error']);
    try {
      const base = new URL(await waitForUrl(run, 20_000)).origin;
      const authorized = { authorization: `Bearer ${token}` };
      expect((await fetch(`${base}/api/health`, { headers: authorized })).status).toBe(200);
      const rng = mulberry32(SEED ^ 0xc00c1e);
      const cookies = ['%zz', '%E0%A4%A', '%', ...Array.from({ length: 20 }, () => headerSafe(junkString(rng)))];
      for (const value of cookies) {
        const cookie = `aioscope_token=${value}`;
        const polling = await fetch(`${base}/socket.io/?EIO=4&transport=polling`, {
          headers: { cookie },
          signal: AbortSignal.timeout(5_000),
        }).catch((error: unknown) => error as Error);
        // A crash shows as a reset connection and an exit within moments.
        await Promise.race([run.exited, sleep(300)]);
        expect(run.child.exitCode, `still running after a socket.io handshake with ${cookie}`).toBeNull();
        expect(polling instanceof Response ? polling.status : polling.message, `handshake with ${cookie}`).toBe(403);
        const rest = await fetch(`${base}/api/targets`, { headers: { cookie }, signal: AbortSignal.timeout(5_000) });
        expect(rest.status, `REST with ${cookie}`).toBe(401);
        expect(typeof ((await rest.json()) as { error?: unknown }).error).toBe('string');
      }
      expect((await fetch(`${base}/api/health`, { headers: authorized })).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
      await withTimeout(run.exited, 10_000, 'the command line to exit').catch(() => run.child.kill('SIGKILL'));
    }
  });

  it('created nothing in the database and is still healthy', async () => {
    expect(await catalogCounts(admin)).toEqual(before);
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    expect(monitor.currentStatus().state).toBe('live');
    const polluted = ({} as Record<string, unknown>).polluted;
    expect(polluted, 'Object.prototype was not polluted').toBeUndefined();
  });
});
