import { useEffect, useMemo, useRef } from 'react';
import { io } from 'socket.io-client';
import { LiveLink, type OpenLiveSocket } from './liveLink.ts';
import { LiveStore } from './liveStore.ts';
import type { LiveSocket } from './onChecked.ts';

/**
 * socket.io's own reconnection, tightened so a page is live again within a couple of seconds of
 * aioscope being back (its defaults wait up to 5 s between attempts).
 */
const RECONNECT = { reconnectionDelay: 250, reconnectionDelayMax: 2_000 } as const;

/**
 * One socket per call (forceNew): a link moving to another replica closes its own socket only.
 * `?replica=NAME` is what the team's load balancer routes by (deploy/team/nginx.conf).
 */
const openLiveSocket: OpenLiveSocket = (replica): LiveSocket =>
  io({
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    ...RECONNECT,
    ...(replica === undefined ? {} : { query: { replica } }),
  });

/**
 * Connects to the live stream of one target and returns its store. `replica`: the replica that
 * samples it, as the targets list says (--replica-name), where the socket is opened first; the
 * link follows the owner from there (live/liveLink.ts).
 */
export function useLiveTarget(targetId: string | null, replica?: string): LiveStore {
  // A store per server: switching servers must not draw one server's samples under the other's name.
  // targetId is not read inside: it is the key that makes a new store for each server.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const store = useMemo(() => new LiveStore(), [targetId]);
  // Read when a link opens only: the targets list refreshing does not reconnect a live socket.
  const firstReplica = useRef(replica);
  useEffect(() => {
    firstReplica.current = replica;
  }, [replica]);
  useEffect(() => {
    if (targetId === null) return undefined;
    const link = new LiveLink(targetId, store, openLiveSocket, firstReplica.current);
    return () => link.stop();
  }, [store, targetId]);
  return store;
}
