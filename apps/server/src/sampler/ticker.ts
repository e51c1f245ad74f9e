import { performance } from 'node:perf_hooks';

export interface TickerOptions {
  intervalMs: number;
  /** One tick. It is never started again while still running. */
  run: () => Promise<void>;
  /** Ticks whose slot passed while the previous one was still running. */
  onSkipped?: (count: number) => void;
  onError?: (error: unknown) => void;
}

export interface Ticker {
  stop(): void;
}

/**
 * Runs `run` on a fixed grid of `intervalMs` with a chained setTimeout: the delay subtracts the
 * tick's own duration, and a tick still running when its successor's slot comes means that slot is
 * skipped and counted, never queued (no pile-up of queries against a slow server).
 */
export function startTicker(options: TickerOptions): Ticker {
  const { intervalMs } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let slot = performance.now();

  const loop = async (): Promise<void> => {
    if (stopped) return;
    try {
      await options.run();
    } catch (error) {
      options.onError?.(error);
    }
    if (stopped) return;
    slot += intervalMs;
    const now = performance.now();
    if (now > slot) {
      const missed = Math.floor((now - slot) / intervalMs) + 1;
      slot += missed * intervalMs;
      options.onSkipped?.(missed);
    }
    timer = setTimeout(() => void loop(), slot - now);
  };

  timer = setTimeout(() => void loop(), 0);
  return {
    stop(): void {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
