/**
 * socket.io viewers in a process of their own (forked by bench/run.ts through `node --import tsx`),
 * so the clients' CPU is not counted as aioscope's. Each viewer is a separate connection
 * (forceNew), websocket transport only, as the dashboard connects. Controlled over IPC.
 */
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@aioscope/spec';
import { percentiles } from './lib/stats.ts';
import type { ViewerReply, ViewerRequest, ViewerStats } from './lib/viewerProtocol.ts';

type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Latency samples kept per measurement window, whatever the number of viewers. */
const MAX_LATENCY_SAMPLES = 200_000;
const JOIN_TIMEOUT_MS = 30_000;
const CONNECT_BATCH = 10;

let measuring = false;
let latencies: number[] = [];
let bytesByEvent: Record<string, number> = {};
let windowStartedAt = 0;
let cpuAtStart = process.cpuUsage();

class Viewer {
  socket: LiveSocket;
  bytes = 0;
  frames = 0;
  disconnected = false;
  /** Whether the last join was answered by the replica that samples the target (named replicas). */
  onOwner = false;
  /** The replica this viewer asked for by ?replica= (after following the owner), if any. */
  private asked: string | undefined;

  constructor(
    private readonly url: string,
    private readonly targetId: string,
    /** Follow the owner the join's reply names, once, as the page does (live/liveLink.ts). */
    private readonly follow: boolean,
    /** Sent with the handshake: the user an auth proxy in front would name. */
    private readonly headers: Record<string, string> = {},
  ) {
    this.socket = this.open(undefined);
  }

  private open(replica: string | undefined): LiveSocket {
    this.asked = replica;
    const socket: LiveSocket = io(this.url, {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      reconnection: true,
      extraHeaders: this.headers,
      ...(replica === undefined ? {} : { query: { replica } }),
    });
    const current = (): boolean => socket === this.socket;
    socket.io.on('open', () => {
      socket.io.engine.on('packet', (packet: { type: string; data?: unknown }) => {
        if (!measuring || !current()) return;
        const data = packet.data;
        const size =
          1 + (typeof data === 'string' ? Buffer.byteLength(data) : data instanceof ArrayBuffer ? data.byteLength : 0);
        this.bytes += size;
        const name =
          packet.type === 'message' && typeof data === 'string'
            ? (/^\d+\["([^"]+)"/.exec(data)?.[1] ?? 'other')
            : `engine:${packet.type}`;
        bytesByEvent[name] = (bytesByEvent[name] ?? 0) + size;
      });
    });
    socket.on('frame', (event) => {
      if (!measuring || !current()) return;
      this.frames++;
      if (latencies.length < MAX_LATENCY_SAMPLES) latencies.push(Date.now() - event.frame.t);
    });
    socket.on('disconnect', () => {
      if (measuring && current()) this.disconnected = true;
    });
    return socket;
  }

  /** Connects and joins its target (on its owner when following); resolves once joined. */
  join(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('viewer did not get a snapshot in time')), JOIN_TIMEOUT_MS);
      const attach = (socket: LiveSocket): void => {
        socket.once('connect_error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        socket.on('connect', () => {
          socket.emit('joinTarget', { targetId: this.targetId }, (reply) => {
            if (socket !== this.socket) return;
            if (!reply.ok) {
              clearTimeout(timer);
              reject(new Error(reply.error));
              return;
            }
            // The snapshot came before the reply. Another replica samples the target: go there.
            const { owner, replica } = reply;
            this.onOwner = owner !== undefined && owner === replica;
            if (this.follow && this.asked === undefined && owner !== undefined && owner !== replica) {
              this.socket = this.open(owner);
              socket.disconnect();
              attach(this.socket);
              return;
            }
            clearTimeout(timer);
            resolve();
          });
        });
      };
      attach(this.socket);
    });
  }

  close(): void {
    this.socket.disconnect();
  }
}

const viewers: Viewer[] = [];

async function setViewers(
  url: string,
  count: number,
  targetIds: readonly string[] = ['embedded'],
  follow = false,
  headers: Record<string, string> = {},
): Promise<number> {
  while (viewers.length > count) viewers.pop()?.close();
  while (viewers.length < count) {
    const first = viewers.length;
    const batch = Array.from(
      { length: Math.min(CONNECT_BATCH, count - viewers.length) },
      (_, i) => new Viewer(url, targetIds[(first + i) % targetIds.length] ?? 'embedded', follow, headers),
    );
    viewers.push(...batch);
    await Promise.all(batch.map((viewer) => viewer.join()));
  }
  return viewers.length;
}

function measureStart(): void {
  for (const viewer of viewers) {
    viewer.bytes = 0;
    viewer.frames = 0;
    viewer.disconnected = false;
  }
  latencies = [];
  bytesByEvent = {};
  windowStartedAt = performance.now();
  cpuAtStart = process.cpuUsage();
  measuring = true;
}

function measureStop(): ViewerStats {
  measuring = false;
  const seconds = (performance.now() - windowStartedAt) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  return {
    viewers: viewers.length,
    seconds,
    bytesPerViewer: viewers.map((viewer) => viewer.bytes),
    framesPerViewer: viewers.map((viewer) => viewer.frames),
    bytesByEvent: { ...bytesByEvent },
    latency: percentiles(latencies),
    disconnects: viewers.filter((viewer) => viewer.disconnected).length,
    viewersOnOwner: viewers.filter((viewer) => viewer.onOwner).length,
    viewerProcessCpuPercent: (100 * (cpu.user + cpu.system)) / 1e6 / seconds,
  };
}

function reply(message: ViewerReply): void {
  process.send?.(message);
}

function shutdown(): void {
  for (const viewer of viewers.splice(0)) viewer.close();
  process.exit(0);
}

process.on('message', (raw) => {
  const request = raw as ViewerRequest;
  void (async () => {
    try {
      switch (request.type) {
        case 'setViewers':
          reply({
            id: request.id,
            ok: true,
            type: 'done',
            viewers: await setViewers(
              request.url,
              request.count,
              request.targetIds,
              request.followOwner === true,
              request.headers,
            ),
          });
          break;
        case 'measureStart':
          measureStart();
          reply({ id: request.id, ok: true, type: 'done', viewers: viewers.length });
          break;
        case 'measureStop':
          reply({ id: request.id, ok: true, type: 'stats', stats: measureStop() });
          break;
        case 'exit':
          reply({ id: request.id, ok: true, type: 'done', viewers: 0 });
          shutdown();
      }
    } catch (error) {
      reply({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  })();
});

// The parent went away (crash, kill): never outlive it.
process.on('disconnect', shutdown);
