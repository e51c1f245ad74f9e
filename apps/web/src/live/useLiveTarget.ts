import { useEffect, useMemo } from 'react';
import { io } from 'socket.io-client';
import { joinTargetReplySchema } from '@aioscope/spec';
import { payloadChecker } from '../api/checkPayload.ts';
import { LiveStore } from './liveStore.ts';
import { onChecked, type LiveSocket } from './onChecked.ts';

/**
 * socket.io's own reconnection, tightened so a page is live again within a couple of seconds of
 * aioscope being back (its defaults wait up to 5 s between attempts).
 */
const RECONNECT = { reconnectionDelay: 250, reconnectionDelayMax: 2_000 } as const;
/** After the server closed the connection itself (aioscope stopping or restarting). */
const SERVER_DISCONNECT_RETRY_MS = 250;

/** Connects to the live stream of one target and returns its store. */
export function useLiveTarget(targetId: string | null): LiveStore {
  // A store per server: switching servers must not draw one server's samples under the other's name.
  // targetId is not read inside: it is the key that makes a new store for each server.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const store = useMemo(() => new LiveStore(), [targetId]);
  useEffect(() => {
    if (targetId === null) return undefined;
    const socket: LiveSocket = io({ path: '/socket.io', transports: ['websocket'], ...RECONNECT });
    let retry: ReturnType<typeof setTimeout> | undefined;
    const join = (): void => {
      socket.emit('joinTarget', { targetId }, (reply: unknown) => {
        const checked = payloadChecker.check('joinTarget reply', joinTargetReplySchema, reply);
        if (checked !== undefined && !checked.ok) store.setSocketState('connected', checked.error);
      });
    };
    socket.on('connect', () => {
      store.setSocketState('connected');
      join();
    });
    socket.on('disconnect', (reason) => {
      store.setSocketState('disconnected', `connection to aioscope lost (${reason})`);
      // socket.io's client retries a lost transport by itself, but not a disconnect the server
      // asked for, which is what a restart of aioscope looks like: try again anyway. Once this
      // first attempt fails, the client's own backoff (RECONNECT) takes over.
      if (reason === 'io server disconnect') retry = setTimeout(() => socket.connect(), SERVER_DISCONNECT_RETRY_MS);
    });
    socket.on('connect_error', (error) =>
      store.setSocketState('disconnected', `cannot reach aioscope: ${error.message}`),
    );
    onChecked(socket, 'snapshot', (snapshot) => {
      if (snapshot.targetId === targetId) store.replace(snapshot);
    });
    onChecked(socket, 'frame', (event) => {
      if (event.targetId === targetId) store.addFrame(event.frame);
    });
    onChecked(socket, 'ioDelta', (event) => {
      if (event.targetId === targetId) store.addDelta(event.delta);
    });
    onChecked(socket, 'processes', (event) => {
      if (event.targetId === targetId) store.setProcesses(event.processes, event.t);
    });
    onChecked(socket, 'status', (event) => {
      if (event.targetId === targetId) store.setStatus(event.status);
    });
    return () => {
      clearTimeout(retry);
      socket.disconnect();
    };
  }, [store, targetId]);
  return store;
}
