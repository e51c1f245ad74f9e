import { useEffect, useMemo } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@aioscope/spec';
import { LiveStore } from './liveStore.ts';

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
