import type { createAdapter } from '@socket.io/redis-streams-adapter';
import { StartupError } from '../targets/resolveTarget.ts';
import type { Logger } from '../system/logger.ts';

/**
 * Heartbeats between replicas: a request to every replica (a snapshot of a target owned
 * elsewhere) waits for each replica it knows to answer, so a killed one must be forgotten soon.
 */
export const HEARTBEAT_MS = 1_000;
const HEARTBEAT_TIMEOUT_MS = 3_000;
const RECONNECT_MAX_MS = 2_000;

export type LiveAdapter = ReturnType<typeof createAdapter>;

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

/**
 * Connects to the Redis that relays live events between replicas (--adapter). Unreachable at
 * start: a StartupError (exit 2), unless `wait`, which starts anyway and keeps retrying, as
 * --wait-for-db does for the store. Once connected, a lost Redis is retried without end.
 */
export async function connectLiveAdapter(
  url: string,
  options: { wait: boolean; log: Logger },
): Promise<{ adapter: LiveAdapter; health: LiveAdapterHealth; close: () => Promise<void> }> {
  // Loaded here, not at the top: only a team deployment (--adapter) uses Redis, and loading its
  // client cost every start ~240 ms and ~27 MB of RSS (node -e "import('redis')" against node -e 1).
  const [{ createClient }, adapterModule] = await Promise.all([
    import('redis'),
    import('@socket.io/redis-streams-adapter'),
  ]);
  let connectedOnce = false;
  const client = createClient({
    url,
    socket: {
      connectTimeout: 3_000,
      reconnectStrategy: (retries, cause) =>
        connectedOnce || options.wait ? Math.min(100 * 2 ** retries, RECONNECT_MAX_MS) : cause,
    },
  });
  let lastError = '';
  const listeners = new Set<(health: AdapterHealth) => void>();
  const now = (): AdapterHealth =>
    client.isReady
      ? { ok: true, reason: null }
      : {
          ok: false,
          reason: `the live adapter's Redis at ${shown(url)} is unreachable${lastError === '' ? '' : `: ${lastError}`}`,
        };
  let reported = true;
  const report = (): void => {
    const health = now();
    if (health.ok === reported) return;
    reported = health.ok;
    for (const listener of listeners) listener(health);
  };
  // Without a listener an error event would end the process; say each new cause once (a first
  // connection that fails without --wait-for-db is said once, by the StartupError).
  client.on('error', (error: Error) => {
    const known = error.message === lastError;
    lastError = error.message;
    report();
    if (known || !(connectedOnce || options.wait)) return;
    options.log.warn(`live adapter Redis at ${shown(url)}: ${error.message}`);
  });
  client.on('ready', () => {
    connectedOnce = true;
    lastError = '';
    report();
  });
  client.on('end', report);
  client.on('reconnecting', report);
  const connecting = client.connect();
  if (options.wait) {
    connecting.catch(() => undefined);
  } else {
    try {
      await connecting;
    } catch (error) {
      throw new StartupError(
        `live adapter Redis at ${shown(url)} cannot be used: ${(error as Error).message} (--wait-for-db starts anyway and keeps retrying)`,
      );
    }
  }
  const adapter = adapterModule.createAdapter(client, {
    heartbeatInterval: HEARTBEAT_MS,
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
  });
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
      if (client.isOpen) await client.close().catch(() => undefined);
    },
  };
}
