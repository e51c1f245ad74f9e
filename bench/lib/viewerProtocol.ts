/** Messages between bench/run.ts and the bench/viewers.ts child process (over the fork IPC channel). */

export type ViewerRequest =
  /** Viewer i joins targetIds[i % length] ('embedded' when absent). */
  /** followOwner: each reconnects to the replica its join names as the owner (?replica=), as the page does. */
  /** headers: sent with each new viewer's handshake (an auth proxy's user header). */
  | {
      id: number;
      type: 'setViewers';
      url: string;
      count: number;
      targetIds?: string[];
      followOwner?: boolean;
      headers?: Record<string, string>;
    }
  | { id: number; type: 'measureStart' }
  | { id: number; type: 'measureStop' }
  | { id: number; type: 'exit' };

export interface ViewerStats {
  viewers: number;
  /** Seconds between measureStart and measureStop. */
  seconds: number;
  /** Received payload bytes per viewer (engine.io packets: type byte + data), during the window. */
  bytesPerViewer: number[];
  /** 'frame' events per viewer during the window. */
  framesPerViewer: number[];
  /** Bytes per event name, summed over viewers. */
  bytesByEvent: Record<string, number>;
  /** Receive time (Date.now()) minus frame.t (server clock_timestamp()), ms: percentiles over all viewers. */
  latency: { n: number; p50: number; p95: number; p99: number; max: number };
  /** Viewers disconnected at some point in the window. */
  disconnects: number;
  /** Viewers whose join was answered by their target's owner (replicas started with --replica-name). */
  viewersOnOwner: number;
  /** CPU of the viewer process itself during the window, % of one core. */
  viewerProcessCpuPercent: number;
}

export type ViewerReply =
  | { id: number; ok: true; type: 'done'; viewers: number }
  | { id: number; ok: true; type: 'stats'; stats: ViewerStats }
  | { id: number; ok: false; error: string };
