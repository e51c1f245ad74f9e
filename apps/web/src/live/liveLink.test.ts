import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveSnapshot } from '@aioscope/spec';
import { LiveLink, type OpenLiveSocket } from './liveLink.ts';
import { LiveStore } from './liveStore.ts';
import type { LiveSocket } from './onChecked.ts';

const TARGET = 'orders';

/**
 * A stand-in for one named replica's live hub, speaking the real socket.io protocol: it answers a
 * join with its name and the owner it is told of, and sends a snapshot that says who sent it.
 */
class FakeReplica {
  readonly sockets: Socket[] = [];
  readonly joins: string[] = [];
  owner: string;
  /** While set, a join is refused (the target is not sampled by any replica yet). */
  refusing = false;
  private readonly http: HttpServer = createServer();
  private readonly server = new Server(this.http, { path: '/socket.io' });

  constructor(
    readonly name: string,
    owner: string,
  ) {
    this.owner = owner;
    this.server.on('connection', (socket) => {
      this.sockets.push(socket);
      socket.on('joinTarget', (payload: { targetId: string }, reply: (r: unknown) => void) => {
        this.joins.push(String(socket.handshake.query.replica ?? ''));
        if (this.refusing)
          return reply({ ok: false, error: `"${payload.targetId}" is sampled by no replica right now` });
        void socket.join(payload.targetId);
        socket.emit('snapshot', snapshotFrom(this.name, payload.targetId));
        reply({ ok: true, replica: this.name, owner: this.owner });
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  connected(): number {
    return this.sockets.filter((s) => s.connected).length;
  }

  announce(owner: string): void {
    this.server.to(TARGET).emit('owner', { targetId: TARGET, owner });
  }

  async close(): Promise<void> {
    await this.server.close();
  }
}

/** An empty snapshot whose status message names the replica that sent it. */
function snapshotFrom(replica: string, targetId: string): LiveSnapshot {
  return {
    targetId,
    frames: [],
    ioDeltas: [],
    status: { state: 'live', message: `from ${replica}`, since: 0, lastFrameAt: null, skippedTicks: 0 },
    processes: [],
  };
}

async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('LiveLink: a page follows its target to the replica that samples it', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * Two replicas, a (the owner) and b; `route` plays the load balancer: ?replica=NAME to that
   * replica while `down` does not name it, anything else to b.
   */
  async function twoReplicas(): Promise<{
    a: FakeReplica;
    b: FakeReplica;
    down: Set<string>;
    asked: (string | undefined)[];
    open: OpenLiveSocket;
  }> {
    const [a, b] = [new FakeReplica('a', 'a'), new FakeReplica('b', 'a')];
    const urls = new Map([
      ['a', await a.listen()],
      ['b', await b.listen()],
    ]);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const down = new Set<string>();
    const asked: (string | undefined)[] = [];
    const open: OpenLiveSocket = (replica) => {
      asked.push(replica);
      const to = replica !== undefined && !down.has(replica) ? replica : 'b';
      return io(urls.get(to) ?? '', {
        path: '/socket.io',
        transports: ['websocket'],
        forceNew: true,
        reconnectionDelay: 50,
        reconnectionDelayMax: 100,
        ...(replica === undefined ? {} : { query: { replica } }),
      }) as LiveSocket;
    };
    return { a, b, down, asked, open };
  }

  function link(open: OpenLiveSocket, replica?: string): { link: LiveLink; store: LiveStore } {
    const store = new LiveStore();
    const made = new LiveLink(TARGET, store, open, replica);
    cleanups.push(() => made.stop());
    return { link: made, store };
  }

  it('lands on another replica, then reconnects to the owner named in the reply and keeps its store', async () => {
    const { a, b, asked, open } = await twoReplicas();
    const { link: live, store } = link(open);
    await until(() => live.replica() === 'a', 'served by the owner a');
    expect(asked).toEqual([undefined, 'a']);
    expect(store.status?.message).toBe('from a');
    // The socket on b is closed once the one on a is open; no third socket.
    await until(() => b.connected() === 0, 'the socket on b closed');
    expect(a.connected()).toBe(1);
    expect(store.socketState).toBe('connected');
  });

  it('opens on the replica the targets list names and stays there', async () => {
    const { a, b, asked, open } = await twoReplicas();
    const { link: live } = link(open, 'a');
    await until(() => live.replica() === 'a', 'served by a');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(asked).toEqual(['a']);
    expect(b.sockets).toHaveLength(0);
    expect(a.joins).toEqual(['a']);
  });

  it('follows an owner event after a handover, and stays on a backup while the owner it asked for is down', async () => {
    const { a, b, down, asked, open } = await twoReplicas();
    const { link: live, store } = link(open, 'a');
    await until(() => live.replica() === 'a', 'served by a');
    // a hands the target to b (a rebalance): the new owner tells the target's viewers everywhere.
    a.owner = 'b';
    b.owner = 'b';
    a.announce('b');
    await until(() => live.replica() === 'b', 'moved to b');
    expect(store.status?.message).toBe('from b');
    await until(() => a.connected() === 0, 'the socket on a closed');

    // Asked for c, which is down: the balancer's backup b serves it and names c the owner (its
    // view is a second old); the link stays rather than reconnecting in a loop.
    down.add('c');
    b.owner = 'c';
    b.announce('c');
    await until(() => asked.length === 3, 'asked for c');
    await until(() => live.replica() === 'b', 'served by the backup b');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(asked).toEqual(['a', 'b', 'c']);
    expect(b.connected()).toBe(1);
  });

  it('asks again after a refused join (a target between owners after a kill)', async () => {
    const { a, open } = await twoReplicas();
    a.refusing = true;
    const { link: live, store } = link(open, 'a');
    await until(() => a.joins.length === 1, 'the first join');
    expect(store.socketError).toMatch(/sampled by no replica/);
    a.refusing = false;
    await until(() => live.replica() === 'a', 'joined at the second attempt', 6_000);
    expect(a.joins).toHaveLength(2);
  });
});
