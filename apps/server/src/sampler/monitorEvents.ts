import type { Capabilities, IoStatDelta, LiveFrame, ServerInfo, TargetStatus } from '@aioscope/spec';
import type { ProcessesUpdate } from './fastSampler.ts';

/** Everything a target monitor tells its consumers, one payload per event. */
export interface MonitorEventMap {
  /** One fast-tick sample (20-100 Hz). */
  frame: LiveFrame;
  /** One pg_stat_io delta (1 Hz). */
  ioDelta: IoStatDelta;
  /** The processes table (2 Hz). */
  processes: ProcessesUpdate;
  /** The connection state changed. */
  status: TargetStatus;
  /** Server info and privileges were (re-)read: on connect and every 30 s. */
  serverInfo: { server: ServerInfo; capabilities: Capabilities };
}

export type MonitorEventName = keyof MonitorEventMap;
export type MonitorListener<E extends MonitorEventName> = (payload: MonitorEventMap[E]) => void;

/**
 * What a consumer of a target's data sees (the live hub today; a recorder and /metrics next):
 * subscribe to events, read the recent past. Adding a consumer touches no sampler code.
 */
export interface MonitorFeed {
  readonly id: string;
  on<E extends MonitorEventName>(event: E, listener: MonitorListener<E>): () => void;
}

type ListenerSets = { [E in MonitorEventName]: Set<MonitorListener<E>> };

/**
 * One typed emitter for all of a monitor's events. A consumer that throws is reported and skipped:
 * it must not cost the sampler its tick or the other consumers their event.
 */
export class MonitorEmitter implements Pick<MonitorFeed, 'on'> {
  private readonly listeners: ListenerSets = {
    frame: new Set(),
    ioDelta: new Set(),
    processes: new Set(),
    status: new Set(),
    serverInfo: new Set(),
  };

  constructor(private readonly onListenerError: (event: MonitorEventName, error: unknown) => void) {}

  on<E extends MonitorEventName>(event: E, listener: MonitorListener<E>): () => void {
    const set = this.listeners[event] as Set<MonitorListener<E>>;
    set.add(listener);
    return () => void set.delete(listener);
  }

  emit<E extends MonitorEventName>(event: E, payload: MonitorEventMap[E]): void {
    for (const listener of this.listeners[event] as Set<MonitorListener<E>>) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }

  listenerCount(event: MonitorEventName): number {
    return this.listeners[event].size;
  }
}
