import { joinTargetReplySchema } from '@aioscope/spec';
import { payloadChecker } from '../api/checkPayload.ts';
import type { LiveStore } from './liveStore.ts';
import { onChecked, type LiveSocket } from './onChecked.ts';

/** After the server closed the connection itself (aioscope stopping or restarting). */
const SERVER_DISCONNECT_RETRY_MS = 250;
/**
 * A refused join is asked again this much later: after a replica was killed its targets are
 * sampled again within a few seconds, and the server allows 5 joins per 10 s.
 */
export const JOIN_RETRY_MS = 2_500;

/** A socket to the live hub; `replica` (a replica's name) asks the load balancer for that replica. */
export type OpenLiveSocket = (replica: string | undefined) => LiveSocket;

export type LiveSink = Pick<
  LiveStore,
  'replace' | 'addFrame' | 'addDelta' | 'setProcesses' | 'setStatus' | 'setSocketState'
>;

/**
 * The live stream of one target into its store, on the replica that samples it when replicas are
 * named (--replica-name): the join's reply names the owner, and an 'owner' event names a new one
 * after a handover; the link then opens a socket with `?replica=OWNER` (deploy/team/nginx.conf
 * routes by it) and closes the old one. The store is kept, so the page keeps its place: the new
 * owner's snapshot replaces what it covers. Asked for a replica and served by another (the one
 * asked for is down and the balancer chose a backup), it stays until an owner announces itself.
 */
export class LiveLink {
  private socket: LiveSocket | null = null;
  /** The replica the current socket asked for (undefined: the balancer's choice). */
  private asked: string | undefined;
  /** The replica that serves the current socket, once a join said so. */
  private servedBy: string | undefined;
  /** An owner announced before the join's reply said where this socket is. */
  private announced: string | undefined;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;

  constructor(
    private readonly targetId: string,
    private readonly store: LiveSink,
    private readonly openSocket: OpenLiveSocket,
    replica?: string,
  ) {
    this.open(replica);
  }

  /** The replica serving the socket now (undefined when unnamed or not joined yet). */
  replica(): string | undefined {
    return this.servedBy;
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.socket?.disconnect();
    this.socket = null;
  }

  private later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  private open(replica: string | undefined): void {
    const { targetId, store } = this;
    this.asked = replica;
    this.servedBy = undefined;
    this.announced = undefined;
    const socket = this.openSocket(replica);
    this.socket = socket;
    // A socket left for another replica says nothing more to the store.
    const current = (): boolean => this.socket === socket && !this.stopped;
    socket.on('connect', () => {
      if (!current()) return;
      this.servedBy = undefined;
      store.setSocketState('connected');
      this.join(socket);
    });
    socket.on('disconnect', (reason) => {
      if (!current()) return;
      store.setSocketState('disconnected', `connection to aioscope lost (${reason})`);
      // socket.io's client retries a lost transport by itself, but not a disconnect the server
      // asked for, which is what a restart of aioscope looks like: try again anyway. Once this
      // first attempt fails, the client's own backoff takes over.
      if (reason === 'io server disconnect')
        this.later(() => current() && socket.connect(), SERVER_DISCONNECT_RETRY_MS);
    });
    socket.on('connect_error', (error) => {
      if (current()) store.setSocketState('disconnected', `cannot reach aioscope: ${error.message}`);
    });
    onChecked(socket, 'snapshot', (snapshot) => {
      if (current() && snapshot.targetId === targetId) store.replace(snapshot);
    });
    onChecked(socket, 'frame', (event) => {
      if (current() && event.targetId === targetId) store.addFrame(event.frame);
    });
    onChecked(socket, 'ioDelta', (event) => {
      if (current() && event.targetId === targetId) store.addDelta(event.delta);
    });
    onChecked(socket, 'processes', (event) => {
      if (current() && event.targetId === targetId) store.setProcesses(event.processes, event.t);
    });
    onChecked(socket, 'status', (event) => {
      if (current() && event.targetId === targetId) store.setStatus(event.status);
    });
    onChecked(socket, 'owner', (event) => {
      if (!current() || event.targetId !== targetId) return;
      if (this.servedBy === undefined) this.announced = event.owner;
      else this.follow(event.owner, true);
    });
  }

  private join(socket: LiveSocket): void {
    socket.emit('joinTarget', { targetId: this.targetId }, (reply: unknown) => {
      if (this.socket !== socket || this.stopped) return;
      const checked = payloadChecker.check('joinTarget reply', joinTargetReplySchema, reply);
      if (checked === undefined) return;
      if (!checked.ok) {
        this.store.setSocketState('connected', checked.error);
        this.later(() => this.socket === socket && socket.connected && this.join(socket), JOIN_RETRY_MS);
        return;
      }
      this.servedBy = checked.replica;
      const announced = this.announced;
      this.announced = undefined;
      if (announced !== undefined) this.follow(announced, true);
      else if (checked.owner !== undefined) this.follow(checked.owner, false);
    });
  }

  /** `announced`: the owner said so itself, so it is up (a join's reply may name one that is down). */
  private follow(owner: string, announced: boolean): void {
    if (this.stopped || this.servedBy === undefined || owner === this.servedBy) return;
    if (!announced && owner === this.asked) return;
    const old = this.socket;
    this.open(owner);
    old?.disconnect();
  }
}
