import type { createClient } from 'redis';

type RedisClient = ReturnType<typeof createClient>;

/** Sharded pub/sub (SSUBSCRIBE, SPUBLISH), which the live adapter's per-room channels use, came with Redis 7.0. */
export const MIN_REDIS_MAJOR = 7;

/**
 * Why a Redis cannot carry the live adapter, from its `INFO server` text; null: it can. A
 * version it does not state (a proxy that hides it) is given the benefit of the doubt: a refused
 * subscription is reported when it happens (see shardedClients).
 */
export function redisVersionProblem(infoServer: string): string | null {
  const version = /^redis_version:(\S+)/m.exec(infoServer)?.[1];
  if (version === undefined) return null;
  const major = Number.parseInt(version, 10);
  if (!Number.isFinite(major) || major >= MIN_REDIS_MAJOR) return null;
  return `it is Redis ${version}, and --adapter needs Redis ${String(MIN_REDIS_MAJOR)}.0 or later (sharded pub/sub)`;
}

/**
 * What a server count reads as when Redis cannot be asked: a count no request reaches, so the
 * request waits for the answers that do come and ends at its timeout, never "every replica
 * answered" (remoteTargets.ts askOtherReplicas tells the two apart).
 */
const UNKNOWN_SERVER_COUNT = String(Number.MAX_SAFE_INTEGER);

/** The parts of the two connections socket.io's sharded Redis adapter calls (its util.js). */
export interface ShardedSubscriber {
  sSubscribe(
    channel: string | string[],
    listener: (message: Buffer, channel: Buffer) => void,
    buffers: true,
  ): Promise<void>;
  sUnsubscribe(channel: string | string[]): Promise<void>;
}
/** The adapter tells node-redis from ioredis by an sSubscribe method, on the publisher too. */
export interface ShardedPublisher extends Pick<ShardedSubscriber, 'sSubscribe'> {
  sPublish(channel: string, message: string | Buffer): Promise<number>;
  sendCommand(args: string[]): Promise<unknown>;
}

/** How the two connections' subscriptions fare: refused by Redis (its error reply), or taken again. */
export interface SubscriptionReport {
  /** Redis's own error reply (node-redis's ErrorReply), as opposed to a lost connection. */
  isRefusal(error: unknown): boolean;
  onRefused(reason: string | null): void;
}

/**
 * The connections as the adapter is given them. The adapter leaves the promises of its
 * subscriptions, and of the server count it awaits for a request to every replica, unhandled: a
 * Redis that refuses a subscription (older than 7.0, or an ACL without the channel) or drops the
 * connection while a count is in flight would end the process. Here a refused subscription is
 * reported (the adapter's health says why; a later one taken clears it), one lost with the
 * connection is left to node-redis, which subscribes again on reconnecting, and an unknown count
 * lets the request time out.
 */
export function shardedClients(
  publisher: RedisClient,
  subscriber: RedisClient,
  report: SubscriptionReport,
): { publisher: ShardedPublisher; subscriber: ShardedSubscriber } {
  const subscribed = (done: Promise<void>): Promise<void> =>
    done.then(
      () => report.onRefused(null),
      (error: unknown) => {
        if (report.isRefusal(error)) report.onRefused(error instanceof Error ? error.message : String(error));
      },
    );
  const subscribe: ShardedSubscriber['sSubscribe'] = (channel, listener, buffers) =>
    subscribed(subscriber.sSubscribe(channel, listener, buffers));
  return {
    publisher: {
      sSubscribe: subscribe,
      sPublish: (channel, message) => publisher.sPublish(channel, message),
      sendCommand: (args) => publisher.sendCommand(args).catch(() => [args[2] ?? '', UNKNOWN_SERVER_COUNT]),
    },
    subscriber: {
      sSubscribe: subscribe,
      // Unsubscribing fails only with the connection, whose subscriptions end with it.
      sUnsubscribe: (channel) => subscriber.sUnsubscribe(channel).catch(() => undefined),
    },
  };
}
