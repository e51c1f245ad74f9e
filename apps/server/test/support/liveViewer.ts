import { io, type Socket } from 'socket.io-client';
import type {
  ClientToServerEvents,
  IoStatDelta,
  JoinTargetReply,
  LiveFrame,
  LiveSnapshot,
  ServerToClientEvents,
  TargetStatus,
} from '@aioscope/spec';
import { withTimeout } from './polling.ts';

export type ViewerSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A socket.io viewer as the web app is one: websocket only, no automatic reconnection. */
export interface Viewer {
  socket: ViewerSocket;
  /** Live frames with the local time they arrived. */
  frames: { frame: LiveFrame; receivedAt: number }[];
  deltas: IoStatDelta[];
  statuses: TargetStatus[];
  snapshots: LiveSnapshot[];
  /** Reasons of every disconnection, in order. */
  disconnects: string[];
  /** Every payload received, serialized, for leak checks. */
  received: string[];
  close(): void;
}

export async function connectViewer(url: string, timeoutMs = 5_000): Promise<Viewer> {
  const socket: ViewerSocket = io(url, { transports: ['websocket'], reconnection: false, timeout: timeoutMs });
  const viewer: Viewer = {
    socket,
    frames: [],
    deltas: [],
    statuses: [],
    snapshots: [],
    disconnects: [],
    received: [],
    close: () => void socket.disconnect(),
  };
  socket.on('frame', (payload) => viewer.frames.push({ frame: payload.frame, receivedAt: Date.now() }));
  socket.on('ioDelta', (payload) => viewer.deltas.push(payload.delta));
  socket.on('status', (payload) => viewer.statuses.push(payload.status));
  socket.on('snapshot', (payload) => viewer.snapshots.push(payload));
  socket.on('disconnect', (reason) => viewer.disconnects.push(reason));
  socket.onAny((_event: string, ...args: unknown[]) => {
    // Frames arrive at up to 100 Hz: keep the leak check cheap by not storing them twice.
    if (_event !== 'frame') viewer.received.push(JSON.stringify(args));
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (error) => reject(error));
    }),
    timeoutMs,
    `connecting a viewer to ${url}`,
  );
  return viewer;
}

/** Joins a target and returns the reply and the snapshot that comes before it. */
export async function joinAs(
  viewer: Viewer,
  targetId: string,
  timeoutMs = 5_000,
): Promise<{ reply: JoinTargetReply; snapshot: LiveSnapshot | undefined }> {
  const before = viewer.snapshots.length;
  const reply = await viewer.socket.timeout(timeoutMs).emitWithAck('joinTarget', { targetId });
  return { reply, snapshot: viewer.snapshots[before] };
}
