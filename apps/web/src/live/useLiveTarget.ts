import { useEffect, useMemo, useState } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@aioscope/spec';
import { LiveStore } from './liveStore.ts';

/** Panels re-render at most this often (10 Hz), whatever the sample rate. */
export const RENDER_INTERVAL_MS = 100;

type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Connects to the live stream of one target and returns its store. */
export function useLiveTarget(targetId: string | null): LiveStore {
  const store = useMemo(() => new LiveStore(), []);
  useEffect(() => {
    if (targetId === null) return undefined;
    const socket: LiveSocket = io({ path: '/socket.io', transports: ['websocket'] });
    const join = (): void => {
      socket.emit('joinTarget', { targetId }, (reply) => {
        if (!reply.ok) store.setSocketState('connected', reply.error);
      });
    };
    socket.on('connect', () => {
      store.setSocketState('connected');
      join();
    });
    socket.on('disconnect', (reason) =>
      store.setSocketState('disconnected', `connection to aioscope lost (${reason})`),
    );
    socket.on('connect_error', (error) =>
      store.setSocketState('disconnected', `cannot reach aioscope: ${error.message}`),
    );
    socket.on('snapshot', (snapshot) => {
      if (snapshot.targetId === targetId) store.replace(snapshot);
    });
    socket.on('frame', (event) => {
      if (event.targetId === targetId) store.addFrame(event.frame);
    });
    socket.on('ioDelta', (event) => {
      if (event.targetId === targetId) store.addDelta(event.delta);
    });
    socket.on('processes', (event) => {
      if (event.targetId === targetId) store.setProcesses(event.processes);
    });
    socket.on('status', (event) => {
      if (event.targetId === targetId) store.setStatus(event.status);
    });
    return () => {
      socket.disconnect();
    };
  }, [store, targetId]);
  return store;
}

/**
 * Re-renders the caller at most every RENDER_INTERVAL_MS while the store changes, and once a
 * second regardless (ages and the moving time axis must advance when data stops).
 */
export function useThrottledClock(store: LiveStore): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let seenVersion = store.version;
    let lastRender = Date.now();
    const timer = setInterval(() => {
      const current = Date.now();
      if (store.version !== seenVersion || current - lastRender >= 1000) {
        seenVersion = store.version;
        lastRender = current;
        setNow(current);
      }
    }, RENDER_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [store]);
  return now;
}
