import fp from 'fastify-plugin';
import { Server as SocketServer, type Socket } from 'socket.io';
import {
  joinTargetRequestSchema,
  type ClientToServerEvents,
  type JoinTargetReply,
  type LiveSnapshot,
  type OverviewRow,
  type ServerToClientEvents,
} from '@aioscope/spec';
import type { FastifyInstance } from 'fastify';
import { identifyRequest, type AccessPolicy } from '../http/access.ts';
import { followMonitors, type MonitorChanges } from '../fleet/monitorRegistry.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import { RemoteInterest } from './remoteInterest.ts';
import { closeAdapterBriefly, type AdapterHealth, type LiveAdapter, type LiveAdapterHealth } from './redisAdapter.ts';
import {
  REMOTE_ANSWER_TIMEOUT_MS,
  askOtherReplicas,
  notRelayedStatus,
  serveRelayedRequests,
  type InterServerEvents,
  type OwnerSnapshot,
} from './remoteTargets.ts';

/** Frames in the snapshot a viewer gets on joining: 60 s at 20 Hz; at higher rates the newest. */
export const SNAPSHOT_MAX_FRAMES = 1_200;
/** No client message is bigger than a join request; anything larger is refused by the transport. */
export const MAX_CLIENT_MESSAGE_BYTES = 4_096;
/**
 * A viewer with more packets than this waiting to be written (it is not reading) is skipped: live
 * events to it are dropped and it gets no new snapshot until it catches up. Its memory on the
 * server stays bounded, and other viewers are not affected.
 */
export const MAX_QUEUED_PACKETS = 16;
/** Joins allowed per socket per window: a snapshot is the one large, non-volatile message. */
export const MAX_JOINS_PER_WINDOW = 5;
export const JOIN_WINDOW_MS = 10_000;
const ROOM_PREFIX = 'target:';

export function roomOf(targetId: string): string {
  return `${ROOM_PREFIX}${targetId}`;
}

import { watchQueue, queuedPackets } from './queueMeter.ts';

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents>;
type LiveServer = SocketServer<ClientToServerEvents, ServerToClientEvents, InterServerEvents>;

/**
 * socket.io transport: one room per target; a viewer joining gets a bounded snapshot that replaces
 * its state, then live frames. A viewer that stops reading has its frames dropped (see
 * MAX_QUEUED_PACKETS) rather than buffered by the server.
 */
export interface LiveHubOptions {
  monitors: ReadonlyMap<string, TargetMonitor>;
  /** Targets added and removed at run time (a targets file reload); absent: the monitors at start. */
  changes?: MonitorChanges;
  /** Who may open a socket: checked on the handshake, as every REST request is (http/access.ts). */
  access: AccessPolicy;
  /** Joins per socket per JOIN_WINDOW_MS (tests raise it to build a backlog on purpose). */
  maxJoinsPerWindow?: number;
  /** Why a target that is not monitored has no live stream (a recording file), or undefined. */
  notLive?: (targetId: string) => string | undefined;
  /**
   * --adapter: rooms span the replicas. Owned targets' events go through the adapter only while
   * another replica has a viewer of them (live/remoteInterest.ts), and a target owned elsewhere is
   * joined with the owner's snapshot.
   */
  adapter?: LiveAdapter;
  /** Whether the adapter's Redis answers: remote targets say why they are not live while it does not. */
  adapterHealth?: LiveAdapterHealth;
  /**
   * --replica-name: told to each viewer (the join's reply, and an 'owner' event when a target moves)
   * with the name of its target's owner, so a page reconnects there through the load balancer
   * (`?replica=NAME`) and its frames need not be relayed.
   */
  replicaName?: string;
  /**
   * Another replica says it started sampling this target (it holds its lock): a replica cut off
   * from the store that still samples it stops (TargetOwnership.takenElsewhere).
   */
  onTakenElsewhere?: (targetId: string) => void;
  /**
   * With --adapter: whether the targets file lists this id. One it does not is refused at once,
   * not asked of the other replicas (a room and a Redis channel for a name nobody samples).
   */
  isListed?: (targetId: string) => boolean;
  /** With --adapter: this replica's rows of GET /api/overview (naming it), answered to the others for theirs. */
  overviewRows?: () => OverviewRow[];
}

/** The room's sockets whose queue says they stopped reading. */
function backedUp(io: LiveServer, members: ReadonlySet<string>): string[] {
  const slow: string[] = [];
  for (const id of members) {
    const socket = io.sockets.sockets.get(id);
    if (socket !== undefined && queuedPackets(socket) > MAX_QUEUED_PACKETS) slow.push(id);
  }
  return slow;
}

declare module 'fastify' {
  interface FastifyInstance {
    io: SocketServer<ClientToServerEvents, ServerToClientEvents, InterServerEvents>;
  }
}

/**
 * The live hub as a Fastify plugin: socket.io on the app's HTTP server, subscribed to every
 * monitor; on close it unsubscribes and ends the upgraded connections, which are not the HTTP
 * server's to close.
 */
export const liveHubPlugin = fp<LiveHubOptions>(
  async (app, options) => {
    const io = createLiveHub(app, options);
    app.decorate('io', io.server);
    app.addHook('preClose', async () => {
      for (const unsubscribe of io.subscriptions) unsubscribe();
      io.server.disconnectSockets(true);
      io.server.engine.close();
      // The adapter unsubscribes its channels; the Redis connections are closed by their owner.
      if (options.adapter !== undefined) await closeAdapterBriefly(() => io.server.of('/').adapter.close());
    });
  },
  { name: 'aioscope-live-hub', dependencies: ['@fastify/cookie'] },
);

function createLiveHub(
  app: FastifyInstance,
  options: LiveHubOptions,
): { server: LiveServer; subscriptions: (() => void)[] } {
  const { access, monitors } = options;
  const maxJoins = options.maxJoinsPerWindow ?? MAX_JOINS_PER_WINDOW;
  const io: LiveServer = new SocketServer<ClientToServerEvents, ServerToClientEvents, InterServerEvents>(app.server, {
    ...(options.adapter === undefined ? {} : { adapter: options.adapter }),
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_CLIENT_MESSAGE_BYTES,
    // Same-origin only: the page is served by this process.
    cors: undefined,
    allowRequest: (request, callback) => {
      try {
        const origin = request.headers.origin;
        const host = request.headers.host;
        const sameOrigin = origin === undefined || (host !== undefined && hostOf(origin) === host);
        if (!sameOrigin) return callback('another origin', false);
        const verdict = identifyRequest(request, access, (header) => app.parseCookie(header));
        if (!verdict.ok && verdict.warn !== undefined) app.log.warn({ url: request.url }, verdict.warn);
        // The joins and leaves a socket sends after this only read: being let in is all they need.
        callback(verdict.ok ? null : verdict.error, verdict.ok);
      } catch {
        // Whatever a client sends, it must not take the process down: refuse it.
        callback(null, false);
      }
    },
  });

  const relayed = options.adapter !== undefined;
  const name = options.replicaName;
  const named = name === undefined ? {} : { replica: name };
  const interest = relayed ? followRemoteInterest(io, monitors) : undefined;
  // socket.io's cluster adapter delivers a broadcast to this replica's own viewers only once Redis
  // took it: while Redis is lost, the targets sampled here are sent to their local viewers only,
  // or their live view would stop with it (the other replicas cannot be reached anyway). While no
  // other replica has a viewer of the target, it is not published at all: each frame would be
  // encoded here and sent to Redis for nobody.
  const relaying = (targetId: string): boolean =>
    interest !== undefined && options.adapterHealth?.now().ok !== false && interest.watchedElsewhere(targetId);
  const subscriptions: (() => void)[] = interest === undefined ? [] : [() => interest.stop()];
  const follow = (monitor: TargetMonitor): (() => void) => {
    const room = roomOf(monitor.id);
    // Not socket.io's volatile: it drops a packet whenever the transport is busy for a moment
    // (any emit right after another), costing healthy viewers frames. Instead every viewer gets
    // every event unless its own queue shows it stopped reading. Encoded once for the room.
    const send = <E extends 'frame' | 'ioDelta' | 'processes'>(
      event: E,
      payload: Parameters<ServerToClientEvents[E]>[0],
    ): void => {
      // socket.io encodes a packet before it looks who is in the room: with no viewer (the
      // common case of a server left recording) that was a JSON encoding of every frame for nobody.
      const members = io.sockets.adapter.rooms.get(room) ?? new Set<string>();
      const across = relaying(monitor.id);
      if (members.size === 0 && !across) return;
      const skip = backedUp(io, members);
      const to = (across ? io : io.local).to(room);
      const target = skip.length > 0 ? to.except(skip) : to;
      (target.emit as (event: E, payload: Parameters<ServerToClientEvents[E]>[0]) => boolean)(event, payload);
    };
    if (relayed && options.adapterHealth?.now().ok !== false) {
      // A replica cut off from the store may still sample it: it hears that it lost it.
      io.serverSideEmit('taken', monitor.id);
      // Viewers of this target on other replicas (or here, waiting since a handover) may come here.
      if (name !== undefined) io.to(room).emit('owner', { targetId: monitor.id, owner: name });
    }
    const offs = [
      monitor.on('frame', (frame) => send('frame', { targetId: monitor.id, frame })),
      monitor.on('ioDelta', (delta) => send('ioDelta', { targetId: monitor.id, delta })),
      monitor.on('processes', ({ t, processes }) => send('processes', { targetId: monitor.id, t, processes })),
      monitor.on('status', (status) =>
        (relaying(monitor.id) ? io : io.local).to(room).emit('status', { targetId: monitor.id, status }),
      ),
    ];
    return () => {
      offs.forEach((off) => off());
      // A target no longer sampled here may still have viewers here: it is now watched elsewhere.
      if (interest !== undefined) setImmediate(() => interest.announce());
    };
  };
  subscriptions.push(followMonitors(monitors, options.changes, follow));

  io.on('connection', (socket: LiveSocket) => {
    watchQueue(socket.conn);
    const joins: number[] = [];
    // socket.io passes the acknowledgement last, whatever the client sent before it.
    const onJoin = (...args: unknown[]): void => {
      const last = args[args.length - 1];
      const respond = typeof last === 'function' ? (last as (result: JoinTargetReply) => void) : (): void => undefined;
      const payload = typeof args[0] === 'function' ? undefined : args[0];
      const now = Date.now();
      while (joins.length > 0 && now - (joins[0] ?? now) > JOIN_WINDOW_MS) joins.shift();
      if (joins.length >= maxJoins) {
        respond({ ok: false, error: `at most ${maxJoins} joins per ${JOIN_WINDOW_MS / 1000} s` });
        return;
      }
      joins.push(now);
      const local = joinTarget(socket, monitors, payload, options.notLive);
      const targetId = joinTargetRequestSchema.safeParse(payload).data?.targetId;
      const elsewhere =
        relayed &&
        targetId !== undefined &&
        !monitors.has(targetId) &&
        options.notLive?.(targetId) === undefined &&
        options.isListed?.(targetId) !== false;
      if (local.ok || !elsewhere) {
        respond(local.ok && name !== undefined ? { ...local, ...named, owner: name } : local);
        return;
      }
      const lost = options.adapterHealth?.now();
      if (lost?.ok === false) {
        respond({ ok: false, error: notRelayedStatus(lost, Date.now(), null).message ?? '' });
        return;
      }
      void joinRemoteTarget(io, socket, targetId).then((reply) => respond(reply.ok ? { ...reply, ...named } : reply));
    };
    socket.on('joinTarget', onJoin as ClientToServerEvents['joinTarget']);
    socket.on('leaveTarget', (payload) => {
      const parsed = joinTargetRequestSchema.safeParse(payload);
      if (parsed.success) void socket.leave(roomOf(parsed.data.targetId));
    });
  });
  if (relayed) {
    io.on('snapshotOf', (targetId, answer) => {
      const monitor = typeof targetId === 'string' ? monitors.get(targetId) : undefined;
      answer(monitor === undefined ? null : { snapshot: snapshotOf(monitor), owner: name ?? null });
    });
    io.on('taken', (targetId) => {
      if (typeof targetId === 'string') options.onTakenElsewhere?.(targetId);
    });
    io.on('summariesOf', (answer) =>
      answer([...monitors.values()].map((monitor) => ({ ...monitor.summary(), ...named }))),
    );
    io.on('overviewOf', (answer) => answer(options.overviewRows?.() ?? []));
    serveRelayedRequests(io, monitors);
    const stopFollowingHealth = options.adapterHealth?.onChange((health) => {
      // Back: the owners forgot this replica's viewers meanwhile; tell them before asking for snapshots.
      if (health.ok) interest?.announce();
      void tellRemoteViewers(io, monitors, health);
    });
    if (stopFollowingHealth !== undefined) subscriptions.push(stopFollowingHealth);
  }
  return { server: io, subscriptions };
}

/** The targets this replica's viewers watch and it does not sample. */
function remoteRooms(io: LiveServer, monitors: ReadonlyMap<string, TargetMonitor>): string[] {
  return [...io.of('/').adapter.rooms.keys()]
    .filter((room) => room.startsWith(ROOM_PREFIX))
    .map((room) => room.slice(ROOM_PREFIX.length))
    .filter((targetId) => !monitors.has(targetId));
}

/**
 * Tells the other replicas which targets sampled elsewhere have viewers here: whenever a room is
 * opened or closed (a join subscribes to the room's channel, then announces before it asks for the
 * owner's snapshot, both on the adapter's one channel from one connection, so in order: the
 * owner publishes every event after that snapshot), and periodically.
 */
function followRemoteInterest(io: LiveServer, monitors: ReadonlyMap<string, TargetMonitor>): RemoteInterest {
  const interest = new RemoteInterest(
    {
      announce: (replica, targetIds) => io.serverSideEmit('watching', replica, targetIds),
      onAnnouncement: (listener) => io.on('watching', listener),
    },
    () => remoteRooms(io, monitors),
  );
  const changed = (room: string): void => {
    if (room.startsWith(ROOM_PREFIX) && !monitors.has(room.slice(ROOM_PREFIX.length))) interest.announce();
  };
  io.of('/').adapter.on('create-room', changed);
  io.of('/').adapter.on('delete-room', changed);
  return interest;
}

/**
 * A target this replica does not sample: the viewer joins its room (the owner's events reach it
 * through the adapter) and gets the owner's snapshot. Every other replica answers null.
 */
async function joinRemoteTarget(io: LiveServer, socket: LiveSocket, targetId: string): Promise<JoinTargetReply> {
  const room = roomOf(targetId);
  await socket.join(room);
  const { answers, complete } = await askOtherReplicas<OwnerSnapshot | null>((answer) =>
    io.serverSideEmit('snapshotOf', targetId, answer),
  );
  const found = answers.find((s) => s !== null);
  if (found === undefined || found === null) {
    await socket.leave(room);
    return {
      ok: false,
      error: complete
        ? `"${targetId}" is sampled by no replica right now (or is not a target)`
        : `"${targetId}" is sampled by no replica that answered within ${REMOTE_ANSWER_TIMEOUT_MS / 1000} s`,
    };
  }
  socket.emit('snapshot', found.snapshot);
  return found.owner === null ? { ok: true } : { ok: true, owner: found.owner };
}

/** Asks for the owner's snapshot once Redis is back, a second apart. */
const SNAPSHOT_ATTEMPTS_AFTER_RECONNECT = 6;
const SNAPSHOT_RETRY_MS = 1_000;

/**
 * The adapter's Redis lost or back: this replica's viewers of targets sampled elsewhere get no
 * frames meanwhile, so each such room is told why (a status), and once Redis is back gets the
 * owner's snapshot again, which replaces what it missed.
 */
async function tellRemoteViewers(
  io: LiveServer,
  monitors: ReadonlyMap<string, TargetMonitor>,
  health: AdapterHealth,
): Promise<void> {
  const since = Date.now();
  await Promise.all(
    remoteRooms(io, monitors).map(async (targetId) => {
      const room = io.local.to(roomOf(targetId));
      if (!health.ok) {
        room.emit('status', { targetId, status: notRelayedStatus(health, since, null) });
        return;
      }
      // The owner may not have subscribed again yet (it reconnects on its own schedule): until
      // then nobody answers.
      for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS_AFTER_RECONNECT; attempt++) {
        const { answers } = await askOtherReplicas<OwnerSnapshot | null>((answer) =>
          io.serverSideEmit('snapshotOf', targetId, answer),
        );
        const found = answers.find((s) => s !== null);
        if (found !== undefined && found !== null) return void room.emit('snapshot', found.snapshot);
        await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_RETRY_MS));
      }
    }),
  );
}

function snapshotOf(monitor: TargetMonitor): LiveSnapshot {
  return {
    targetId: monitor.id,
    frames: monitor.recentFrames(SNAPSHOT_MAX_FRAMES),
    ioDeltas: monitor.recentIoDeltas(),
    status: monitor.currentStatus(),
    processes: monitor.currentProcesses(),
  };
}

function joinTarget(
  socket: LiveSocket,
  monitors: ReadonlyMap<string, TargetMonitor>,
  payload: unknown,
  notLive?: (targetId: string) => string | undefined,
): JoinTargetReply {
  const parsed = joinTargetRequestSchema.safeParse(payload);
  if (!parsed.success) {
    return { ok: false, error: `invalid joinTarget payload: ${parsed.error.issues[0]?.message ?? 'malformed'}` };
  }
  const monitor = monitors.get(parsed.data.targetId);
  if (monitor === undefined) {
    return { ok: false, error: notLive?.(parsed.data.targetId) ?? `unknown target "${parsed.data.targetId}"` };
  }
  void socket.join(roomOf(monitor.id));
  if (queuedPackets(socket) > MAX_QUEUED_PACKETS) {
    // It has not read what it was sent: another snapshot would only grow the queue.
    return { ok: false, error: 'still sending you earlier data: join again once it has arrived' };
  }
  socket.emit('snapshot', snapshotOf(monitor));
  return { ok: true };
}
