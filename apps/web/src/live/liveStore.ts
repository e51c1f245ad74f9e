import { appendBounded, trimBefore } from '@aioscope/core';
import { stableProcessRows, type ProcessRow } from './stableProcesses.ts';
import type {
  IoStatDelta,
  LiveFrame,
  LiveSnapshot,
  ProcessesSnapshot,
  ProcessView,
  ScanView,
  TargetStatus,
} from '@aioscope/spec';

/** The rolling window every panel shows. */
export const WINDOW_MS = 60_000;
/** Frames kept in the browser: the window at the highest sample rate (100 Hz). */
export const MAX_CLIENT_FRAMES = 6_000;
export const MAX_CLIENT_DELTAS = 120;
/** A target whose newest frame is older than this is stale: "now" figures stop claiming to be now. */
export const STALE_AFTER_MS = 2_000;

/** A recorded moment as timeline/momentOf.ts reads it: what the live view showed at that time. */
export interface RecordedMoment {
  frames: LiveFrame[];
  deltas: IoStatDelta[];
  scans: ScanView[];
  processes: ProcessesSnapshot | null;
  processHistory: readonly ProcessesSnapshot[];
  processOrder: ReadonlyMap<number, number>;
}

/**
 * The processes table of a recorded moment, built from the moment's own lists (`processHistory`,
 * oldest first) in the range's order (`processOrder`), never from the moment shown before: a
 * moment draws the same rows however it was reached, and rows hold their place through a replay.
 */
export function momentProcessRows(moment: RecordedMoment): ProcessRow[] {
  const order = (row: ProcessRow): number => moment.processOrder.get(row.process.pid) ?? Number.MAX_SAFE_INTEGER;
  return moment.processHistory
    .reduce<ProcessRow[]>((rows, list) => stableProcessRows(rows, list.processes, list.t), [])
    .sort((a, b) => order(a) - order(b));
}

/** The items held before `incoming` begins (all of them when it is empty), followed by `incoming`. */
export function keepBefore<T extends { t: number }>(held: readonly T[], incoming: readonly T[]): T[] {
  const first = incoming[0];
  const cut = first === undefined ? held.length : held.findIndex((item) => item.t >= first.t);
  return [...held.slice(0, cut === -1 ? held.length : cut), ...incoming];
}

export type SocketState = 'connecting' | 'connected' | 'disconnected';

/** The store's connection state, as the header's badge reads it. */
export type LiveConnection = Pick<LiveStore, 'socketState' | 'socketError' | 'status' | 'lastReceivedAt'>;
/** What a change brought: a sample frame (the common, 20-100 Hz case) or anything else. */
export type StoreChange = 'frame' | 'other';

/**
 * The browser's bounded copy of one target's live data. A snapshot replaces it (after a reconnect
 * the server's history fills the gap it can); frames and deltas append. Panels read it once per
 * chart bucket (useBucketClock); only the per-sample strip reads it per frame.
 */
export class LiveStore {
  frames: LiveFrame[] = [];
  deltas: IoStatDelta[] = [];
  status: TargetStatus | null = null;
  processes: ProcessView[] = [];
  /** The processes table in a stable order, with processes that just left kept dimmed. */
  processRows: ProcessRow[] = [];
  /** The scan map as of the newest frame that carried it. */
  scans: ScanView[] = [];
  socketState: SocketState = 'connecting';
  socketError: string | null = null;
  /** Browser clock minus server clock at the newest frame: maps "now" onto the server's timeline. */
  clockOffsetMs = 0;
  lastReceivedAt: number | null = null;
  /** Frames dropped by addFrame as already held (a snapshot that overtook them). */
  repeatedFrames = 0;
  version = 0;
  private readonly listeners = new Set<(change: StoreChange) => void>();

  /** Called after every change; returns the unsubscribe function. */
  subscribe(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The newest frame, or undefined before the first one. */
  latestFrame(): LiveFrame | undefined {
    return this.frames[this.frames.length - 1];
  }

  private changed(change: StoreChange = 'other'): void {
    this.version++;
    for (const listener of this.listeners) listener(change);
  }

  /**
   * Takes a snapshot as the truth from its first sample on. What the browser holds from before it
   * stays: after aioscope itself restarted, the new process has no history, and the time it was
   * down must show as a gap between the old samples and the new, not as an empty window.
   */
  replace(snapshot: LiveSnapshot): void {
    this.frames = keepBefore(this.frames, snapshot.frames).slice(-MAX_CLIENT_FRAMES);
    this.deltas = keepBefore(this.deltas, snapshot.ioDeltas).slice(-MAX_CLIENT_DELTAS);
    this.status = snapshot.status;
    this.processes = snapshot.processes;
    this.processRows = stableProcessRows(
      this.processRows,
      snapshot.processes,
      snapshot.frames[snapshot.frames.length - 1]?.t ?? 0,
    );
    this.scans = [...this.frames].reverse().find((frame) => frame.scans !== undefined)?.scans ?? [];
    const newest = this.frames[this.frames.length - 1];
    if (newest !== undefined) this.noteReceived(newest.t);
    this.changed();
  }

  /**
   * Appends a frame newer than every frame held. One at or before the newest is one a snapshot
   * already carried: relayed from another replica, a frame and the owner's snapshot travel apart
   * through the adapter, so the snapshot can overtake a frame it includes. A target's frames come
   * from one sampler at a time in time order, so nothing newer is ever dropped.
   */
  addFrame(frame: LiveFrame): void {
    const newest = this.frames[this.frames.length - 1];
    if (newest !== undefined && frame.t <= newest.t) {
      this.repeatedFrames++;
      return;
    }
    if (frame.scans !== undefined) this.scans = frame.scans;
    appendBounded(this.frames, frame, MAX_CLIENT_FRAMES);
    trimBefore(this.frames, frame.t - WINDOW_MS - 5_000);
    this.noteReceived(frame.t);
    this.changed('frame');
  }

  addDelta(delta: IoStatDelta): void {
    appendBounded(this.deltas, delta, MAX_CLIENT_DELTAS);
    this.changed();
  }

  /** `t`: the server time of the sample the list comes from. */
  setProcesses(processes: ProcessView[], t: number): void {
    this.processes = processes;
    this.processRows = stableProcessRows(this.processRows, processes, t);
    this.changed();
  }

  /**
   * Shows a recorded moment as the live view would have shown it at `at`: the per-sample strip and
   * the "now" figures read the store whatever its source (timeline/momentOf.ts). The processes
   * table is momentProcessRows(moment), unless the caller, which draws it too, computed it already.
   */
  showMoment(moment: RecordedMoment, at: number, processRows = momentProcessRows(moment)): void {
    this.frames = moment.frames;
    this.deltas = moment.deltas;
    this.scans = moment.scans;
    this.processes = moment.processes?.processes ?? [];
    this.processRows = processRows;
    this.socketState = 'connected';
    this.socketError = null;
    const now = Date.now();
    this.lastReceivedAt = now;
    this.clockOffsetMs = now - at;
    this.changed('frame');
  }

  setStatus(status: TargetStatus): void {
    this.status = status;
    this.changed();
  }

  setSocketState(state: SocketState, error: string | null = null): void {
    this.socketState = state;
    this.socketError = error;
    this.changed();
  }

  /** Whether aioscope is reachable and its session to the server is up: REST reads of the server can work. */
  serverReachable(): boolean {
    return this.socketState === 'connected' && this.status?.state === 'live';
  }

  /** Whether the newest frame is too old (or the target not live) for figures to call it "now". */
  isStale(browserNow: number): boolean {
    if (this.lastReceivedAt === null || browserNow - this.lastReceivedAt > STALE_AFTER_MS) return true;
    return this.status !== null && this.status.state !== 'live';
  }

  /** The server's "now", estimated from the browser clock and the offset seen at the last frame. */
  serverNow(browserNow: number): number {
    return browserNow - this.clockOffsetMs;
  }

  private noteReceived(serverT: number): void {
    const now = Date.now();
    this.lastReceivedAt = now;
    this.clockOffsetMs = now - serverT;
  }
}
