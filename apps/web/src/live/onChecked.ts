import type { Socket } from 'socket.io-client';
import {
  serverToClientSchemas,
  type ClientToServerEvents,
  type ServerToClientEvent,
  type ServerToClientEvents,
  type ServerToClientPayload,
} from '@aioscope/spec';
import { payloadChecker, type PayloadChecker } from '../api/checkPayload.ts';

export type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

interface UntypedListen {
  on(event: string, listener: (payload: unknown) => void): unknown;
}

/**
 * Listens to one server event, handing on only payloads that parse with the event's spec schema
 * (a snapshot's frames are parsed once, with the snapshot). Dropped payloads are warned about by
 * payloadChecker, at most once per event per WARN_EVERY_MS.
 */
export function onChecked<E extends ServerToClientEvent>(
  socket: LiveSocket,
  event: E,
  handle: (payload: ServerToClientPayload<E>) => void,
  checker: PayloadChecker = payloadChecker,
): void {
  const schema = serverToClientSchemas[event];
  const listener = (payload: unknown): void => {
    const checked = checker.check(event, schema, payload);
    if (checked !== undefined) handle(checked);
  };
  // The typed socket cannot relate a listener to a generic event name; the payload is checked above.
  (socket as unknown as UntypedListen).on(event, listener);
}
