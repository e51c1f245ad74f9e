import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/config.ts';
import { PUBSUB, SPUBLISH, SSUBSCRIBE, parseNumSubResponse } from '@socket.io/redis-adapter/dist/util.js';
import { redisVersionProblem, shardedClients } from './shardedRedis.ts';

/** `INFO server` of Debian's redis-server 7.0.15, as the tests start it (recorded with redis-cli). */
const INFO_7_0 = readFileSync(path.join(REPO_ROOT, 'apps/server/test/fixtures/redis-7.0.15-info-server.txt'), 'utf8');

describe('redisVersionProblem', () => {
  it('accepts Redis 7.0, which has sharded pub/sub', () => {
    expect(INFO_7_0).toMatch(/^redis_version:7\.0\.15$/m);
    expect(redisVersionProblem(INFO_7_0)).toBeNull();
  });

  it('names the version of an older Redis and what --adapter needs', () => {
    const older = INFO_7_0.replace(/^redis_version:.*$/m, 'redis_version:6.2.14');
    expect(redisVersionProblem(older)).toBe(
      'it is Redis 6.2.14, and --adapter needs Redis 7.0 or later (sharded pub/sub)',
    );
  });

  it('leaves a Redis that does not state its version to its first subscription', () => {
    expect(redisVersionProblem(INFO_7_0.replace(/^redis_version:.*\n/m, ''))).toBeNull();
  });
});

class Refusal extends Error {}

/** Just the calls shardedClients passes on, each answered by `answer` with its name and arguments. */
function fakeClient(answer: (call: string, args: unknown[]) => Promise<unknown>): ReturnType<typeof createClient> {
  const call =
    (name: string) =>
    (...args: unknown[]) =>
      answer(name, args);
  return {
    sSubscribe: call('sSubscribe'),
    sUnsubscribe: call('sUnsubscribe'),
    sPublish: call('sPublish'),
    sendCommand: call('sendCommand'),
  } as unknown as ReturnType<typeof createClient>;
}

describe('shardedClients', () => {
  const listener = (): void => undefined;

  it('is driven by the adapter as node-redis clients, through the calls it makes', async () => {
    const calls: string[] = [];
    const client = fakeClient((name, args) => {
      calls.push(`${name} ${String(args[0])}`);
      return Promise.resolve(name === 'sendCommand' ? ['socket.io#/#', 2] : 1);
    });
    const given = shardedClients(client, client, { isRefusal: () => false, onRefused: () => undefined });
    // The adapter's own helpers (util.js), which pick node-redis's calls or ioredis's by the client.
    await SPUBLISH(given.publisher, 'socket.io#/#', '{}');
    SSUBSCRIBE(given.subscriber, 'socket.io#/#target:orders#', listener);
    expect(await PUBSUB(given.publisher, 'SHARDNUMSUB', 'socket.io#/#')).toBe(2);
    expect(calls).toEqual([
      'sPublish socket.io#/#',
      'sSubscribe socket.io#/#target:orders#',
      'sendCommand PUBSUB,SHARDNUMSUB,socket.io#/#',
    ]);
  });

  it('reports a subscription Redis refuses, and clears it once one is taken', async () => {
    const reasons: (string | null)[] = [];
    let answer: () => Promise<unknown> = () => Promise.reject(new Refusal('NOPERM no permissions to access a channel'));
    const client = fakeClient(() => answer());
    const given = shardedClients(client, client, {
      isRefusal: (error) => error instanceof Refusal,
      onRefused: (reason) => reasons.push(reason),
    });
    // Resolves, never rejects: the adapter does not handle what it returns.
    await expect(given.subscriber.sSubscribe('socket.io#/#', listener, true)).resolves.toBeUndefined();
    answer = () => Promise.resolve();
    await given.subscriber.sSubscribe('socket.io#/#target:orders#', listener, true);
    expect(reasons).toEqual(['NOPERM no permissions to access a channel', null]);
  });

  it('leaves a subscription lost with the connection to node-redis, which subscribes again', async () => {
    const reasons: (string | null)[] = [];
    const lost = fakeClient(() => Promise.reject(new Error('Socket closed unexpectedly')));
    const given = shardedClients(lost, lost, {
      isRefusal: (error) => error instanceof Refusal,
      onRefused: (reason) => reasons.push(reason),
    });
    await expect(given.subscriber.sSubscribe('socket.io#/#', listener, true)).resolves.toBeUndefined();
    await expect(given.subscriber.sUnsubscribe('socket.io#/#')).resolves.toBeUndefined();
    expect(reasons).toEqual([]);
  });

  it('answers a server count it cannot ask with one no request reaches, so the request times out', async () => {
    const lost = fakeClient(() => Promise.reject(new Error('Socket closed unexpectedly')));
    const given = shardedClients(lost, lost, { isRefusal: () => false, onRefused: () => undefined });
    // Parsed by the adapter's own code, as its serverCount does.
    const count = parseNumSubResponse(await given.publisher.sendCommand(['PUBSUB', 'SHARDNUMSUB', 'socket.io#/#']));
    expect(count).toBe(Number.MAX_SAFE_INTEGER);
    const answered = fakeClient(() => Promise.resolve(['socket.io#/#', 3]));
    const asked = shardedClients(answered, answered, { isRefusal: () => false, onRefused: () => undefined });
    expect(parseNumSubResponse(await asked.publisher.sendCommand(['PUBSUB', 'SHARDNUMSUB', 'socket.io#/#']))).toBe(3);
  });
});
