import type { createShardedAdapter } from '@socket.io/redis-adapter';
import type { createClient } from 'redis';
import { StartupError } from '../targets/resolveTarget.ts';
import type { Logger } from '../system/logger.ts';
import { waitAtMost } from '../system/waitAtMost.ts';
import { redisVersionProblem, shardedClients } from './shardedRedis.ts';

const RECONNECT_MAX_MS = 2_000;
/**
 * Each connection PINGs this often. A Redis behind a network path gone dead answers nothing and
 * closes nothing: its sockets stay "ready" for as long as TCP takes to give up (minutes), while
 * every publish waits for its 5 s command timeout, and the adapter delivers a broadcast to this
 * replica's own viewers only after Redis took it.
 */
const PING_INTERVAL_MS = 1_000;
/** No reply to a PING for this long: the Redis is lost, whatever its sockets say. */
export const SILENT_AFTER_MS = 3_500;
/** How often silence is looked for, so the live hub and readiness hear of it without a socket event. */
const SILENCE_CHECK_MS = 500;
/** Unsubscribing on close waits for Redis; a lost one must not hold the shutdown. */
const CLOSE_WAIT_MS = 1_000;

export type LiveAdapter = ReturnType<typeof createShardedAdapter>;

/** Whether the adapter's Redis answers now, and why not. */
export interface AdapterHealth {
  ok: boolean;
  reason: string | null;
}

/** The adapter's Redis as the live hub and the readiness route see it: now, and each change. */
export interface LiveAdapterHealth {
  now(): AdapterHealth;
  onChange(listener: (health: AdapterHealth) => void): () => void;
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

type RedisClient = ReturnType<typeof createClient>;

/**
 * Connects to the Redis that relays live events between replicas (--adapter), with socket.io's
 * sharded Redis adapter in its "dynamic" mode: one pub/sub channel per room, so a target's frames
 * reach only the replicas whose viewers watch it (Redis streams, the earlier choice, made every
 * replica read and decode every frame relayed for any replica). It takes two connections: one
 * publishes, one subscribes. Unreachable at start: a StartupError (exit 2), unless `wait`, which
 * starts anyway and keeps retrying, as --wait-for-db does for the store. Once connected, a lost
 * Redis is retried without end; node-redis subscribes again when it is back.
 */
export async function connectLiveAdapter(
  url: string,
  options: { wait: boolean; log: Logger },
): Promise<{ adapter: LiveAdapter; health: LiveAdapterHealth; close: () => Promise<void> }> {
  // Loaded here, not at the top: only a team deployment (--adapter) uses Redis, and loading its
  // client cost every start ~240 ms and ~27 MB of RSS (node -e "import('redis')" against node -e 1).
  const [{ createClient, ErrorReply }, adapterModule] = await Promise.all([
    import('redis'),
    import('@socket.io/redis-adapter'),
  ]);
  let connectedOnce = false;
  const publisher: RedisClient = createClient({
    url,
    pingInterval: PING_INTERVAL_MS,
    socket: {
      connectTimeout: 3_000,
      reconnectStrategy: (retries, cause) =>
        connectedOnce || options.wait ? Math.min(100 * 2 ** retries, RECONNECT_MAX_MS) : cause,
    },
  });
  const subscriber: RedisClient = publisher.duplicate();
  const clients = [publisher, subscriber];
  let lastError = '';
  /** Why this Redis cannot carry the adapter although it answers (its version, a refused subscription). */
  let unusable: string | null = null;
  const listeners = new Set<(health: AdapterHealth) => void>();
  /** When each connection last heard from Redis: its ready, then each PING's reply. */
  const heardAt = new Map<RedisClient, number>();
  const now = (): AdapterHealth => {
    if (!clients.every((client) => client.isReady))
      return {
        ok: false,
        reason: `the live adapter's Redis at ${shown(url)} is unreachable${lastError === '' ? '' : `: ${lastError}`}`,
      };
    const silentMs = Date.now() - Math.min(...clients.map((client) => heardAt.get(client) ?? 0));
    if (silentMs > SILENT_AFTER_MS)
      return {
        ok: false,
        reason: `the live adapter's Redis at ${shown(url)} does not answer: no reply to PING for ${Math.round(silentMs / 1000)} s`,
      };
    if (unusable !== null)
      return { ok: false, reason: `the live adapter's Redis at ${shown(url)} cannot be used: ${unusable}` };
    return { ok: true, reason: null };
  };
  let reported = true;
  const report = (): void => {
    const health = now();
    if (health.ok === reported) return;
    reported = health.ok;
    for (const listener of listeners) listener(health);
  };
  for (const client of clients) {
    // Without a listener an error event would end the process; say each new cause once (a first
    // connection that fails without --wait-for-db is said once, by the StartupError).
    client.on('error', (error: Error) => {
      const known = error.message === lastError;
      lastError = error.message;
      report();
      if (known || !(connectedOnce || options.wait)) return;
      options.log.warn(`live adapter Redis at ${shown(url)}: ${error.message}`);
    });
    client.on('ping-interval', () => {
      heardAt.set(client, Date.now());
      lastError = '';
      report();
    });
    client.on('ready', () => {
      heardAt.set(client, Date.now());
      if (!clients.every((each) => each.isReady)) return;
      connectedOnce = true;
      lastError = '';
      report();
      // Started with --wait-for-db, the version could not be checked before: say it now.
      if (options.wait)
        void versionProblem().then(
          (problem) => problem !== null && refuse(problem),
          () => undefined,
        );
    });
    client.on('end', report);
    client.on('reconnecting', report);
  }
  const refuse = (reason: string | null): void => {
    if (reason === unusable) return;
    unusable = reason;
    if (reason !== null) options.log.warn(`live adapter Redis at ${shown(url)} cannot be used: ${reason}`);
    report();
  };
  const versionProblem = async (): Promise<string | null> => redisVersionProblem(await publisher.info('server'));
  const connecting = Promise.all(clients.map((client) => client.connect()));
  if (options.wait) {
    connecting.catch(() => undefined);
  } else {
    let problem: string | null;
    try {
      await connecting;
      problem = await versionProblem();
    } catch (error) {
      for (const client of clients) client.destroy();
      throw new StartupError(
        `live adapter Redis at ${shown(url)} cannot be used: ${(error as Error).message} (--wait-for-db starts anyway and keeps retrying)`,
      );
    }
    if (problem !== null) {
      for (const client of clients) client.destroy();
      throw new StartupError(`live adapter Redis at ${shown(url)} cannot be used: ${problem}`);
    }
  }
  const given = shardedClients(publisher, subscriber, {
    isRefusal: (error) => error instanceof ErrorReply,
    onRefused: refuse,
  });
  const adapter = adapterModule.createShardedAdapter(given.publisher, given.subscriber, {
    subscriptionMode: 'dynamic',
  });
  const silenceCheck = setInterval(report, SILENCE_CHECK_MS);
  silenceCheck.unref();
  return {
    adapter,
    health: {
      now,
      onChange: (listener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    },
    close: async () => {
      clearInterval(silenceCheck);
      // A lost Redis: close() would wait for it, the commands it queued with it.
      await Promise.all(
        clients.map((client) =>
          client.isReady ? client.close().catch(() => undefined) : client.isOpen ? client.destroy() : undefined,
        ),
      );
    },
  };
}

/**
 * The adapter's own close unsubscribes its channels, a round trip to Redis: bounded, as a lost
 * Redis would queue it until it is back. The connections are closed right after by their owner.
 */
export function closeAdapterBriefly(close: () => Promise<void> | void): Promise<void> {
  return waitAtMost(close, CLOSE_WAIT_MS);
}
