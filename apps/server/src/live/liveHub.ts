import type { Server as HttpServer } from 'node:http';
import { Server as SocketServer, type Socket } from 'socket.io';
import {
  joinTargetRequestSchema,
  type ClientToServerEvents,
  type JoinTargetReply,
  type ServerToClientEvents,
} from '@aioscope/spec';
import { requestHasToken } from '../plugins/access.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

/** Frames in the snapshot a viewer gets on joining: 60 s at 20 Hz; at higher rates the newest. */
export const SNAPSHOT_MAX_FRAMES = 1_200;
/** No client message is bigger than a join request; anything larger is refused by the transport. */
export const MAX_CLIENT_MESSAGE_BYTES = 4_096;

export function roomOf(targetId: string): string {
  return `target:${targetId}`;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

/**
 * socket.io transport: one room per target; a viewer joining gets a bounded snapshot that replaces
 * its state, then live frames. Frames are sent volatile: a viewer that cannot keep up drops frames
 * rather than making the server buffer them.
 */
export function createLiveHub(
  httpServer: HttpServer,
  monitors: ReadonlyMap<string, TargetMonitor>,
  token?: string,
): SocketServer {
  const io = new SocketServer<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_CLIENT_MESSAGE_BYTES,
    // Same-origin only: the page is served by this process.
    cors: undefined,
    allowRequest: (request, callback) => {
      const origin = request.headers.origin;
      const host = request.headers.host;
      const sameOrigin = origin === undefined || (host !== undefined && hostOf(origin) === host);
      callback(null, sameOrigin && (token === undefined || requestHasToken(request, token)));
    },
  });

  for (const monitor of monitors.values()) {
    const room = roomOf(monitor.id);
    monitor.onFrame((frame) => io.to(room).volatile.emit('frame', { targetId: monitor.id, frame }));
    monitor.onIoDelta((delta) => io.to(room).volatile.emit('ioDelta', { targetId: monitor.id, delta }));
    monitor.onStatus((status) => io.to(room).emit('status', { targetId: monitor.id, status }));
    monitor.onProcesses(({ t, processes }) =>
      io.to(room).volatile.emit('processes', { targetId: monitor.id, t, processes }),
    );
  }

  io.on('connection', (socket: LiveSocket) => {
    socket.on('joinTarget', (payload, reply) => {
      const respond = typeof reply === 'function' ? reply : (): void => undefined;
      const result = joinTarget(socket, monitors, payload);
      respond(result);
    });
    socket.on('leaveTarget', (payload) => {
      const parsed = joinTargetRequestSchema.safeParse(payload);
      if (parsed.success) void socket.leave(roomOf(parsed.data.targetId));
    });
  });
  return io;
}

function joinTarget(
  socket: LiveSocket,
  monitors: ReadonlyMap<string, TargetMonitor>,
  payload: unknown,
): JoinTargetReply {
  const parsed = joinTargetRequestSchema.safeParse(payload);
  if (!parsed.success) {
    return { ok: false, error: `invalid joinTarget payload: ${parsed.error.issues[0]?.message ?? 'malformed'}` };
  }
  const monitor = monitors.get(parsed.data.targetId);
  if (monitor === undefined) return { ok: false, error: `unknown target "${parsed.data.targetId}"` };
  void socket.join(roomOf(monitor.id));
  socket.emit('snapshot', {
    targetId: monitor.id,
    frames: monitor.recentFrames(SNAPSHOT_MAX_FRAMES),
    ioDeltas: monitor.recentIoDeltas(),
    status: monitor.currentStatus(),
    processes: monitor.currentProcesses(),
  });
  return { ok: true };
}
