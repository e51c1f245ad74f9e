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

/** Without new data the page still re-renders this often: ages and the time axis move on. */
const IDLE_RENDER_MS = 1_000;

/**
 * Re-renders the caller when the store changes, as soon as it may: at most every
 * RENDER_INTERVAL_MS (a frame arriving right after a render waits for the rest of the interval,
 * one arriving later is drawn at the next animation frame), and once a second without data.
 * Nothing is rendered while the tab is hidden.
 */
export function useThrottledClock(store: LiveStore): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let lastRender = 0;
    let pending: number | null = null;
    let frameRequest: number | null = null;
    const render = (): void => {
      pending = null;
      frameRequest = null;
      if (document.hidden) return;
      lastRender = Date.now();
      setNow(lastRender);
    };
    const schedule = (): void => {
      if (pending !== null || frameRequest !== null) return;
      const wait = RENDER_INTERVAL_MS - (Date.now() - lastRender);
      if (wait <= 0) frameRequest = requestAnimationFrame(render);
      else pending = window.setTimeout(() => (frameRequest = requestAnimationFrame(render)), wait);
    };
    const unsubscribe = store.subscribe(schedule);
    const idle = window.setInterval(() => {
      if (Date.now() - lastRender >= IDLE_RENDER_MS) schedule();
    }, IDLE_RENDER_MS);
    return () => {
      unsubscribe();
      window.clearInterval(idle);
      if (pending !== null) window.clearTimeout(pending);
      if (frameRequest !== null) cancelAnimationFrame(frameRequest);
    };
  }, [store]);
  return now;
}
