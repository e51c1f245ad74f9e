import { drawThrottle, type DrawThrottle } from './drawThrottle.ts';
import type { LiveStore } from './liveStore.ts';

/**
 * The one draw schedule of a store's per-sample views (the strip, the "now" figures): a shared
 * draw is a task after a store change (drawThrottle.ts), not an animation tick, so one that only
 * draws the strip's canvas costs the page no frame. Each view throttling on its own split a
 * sample's updates over two draws whenever their timers disagreed (one due at once, the other 40 ms
 * after its last draw); here every subscriber runs in the same callback: one draw per sample,
 * whatever the number of views.
 */
export class SamplePaintClock {
  private readonly listeners = new Set<() => void>();
  private readonly throttle: DrawThrottle;
  private unsubscribeStore: (() => void) | null = null;

  constructor(
    private readonly store: LiveStore,
    minIntervalMs?: number,
  ) {
    this.throttle = drawThrottle(() => {
      for (const listener of [...this.listeners]) listener();
    }, minIntervalMs);
  }

  /**
   * Calls `listener` at the shared draw after every store change, or, with `everyMs`, at a shared
   * draw at most once per `everyMs` (the last change still shown, by a draw asked for when its time
   * comes); returns the unsubscribe function.
   */
  subscribe(listener: () => void, everyMs = 0): () => void {
    const paced = everyMs > 0 ? this.paced(listener, everyMs) : { call: listener, cancel: () => undefined };
    this.listeners.add(paced.call);
    // Every change, not only frames: a snapshot after a reconnect replaces the newest frame.
    this.unsubscribeStore ??= this.store.subscribe(this.throttle.schedule);
    return () => {
      paced.cancel();
      this.listeners.delete(paced.call);
      if (this.listeners.size > 0) return;
      this.unsubscribeStore?.();
      this.unsubscribeStore = null;
      this.throttle.cancel();
    };
  }

  /** A listener run at shared draws no closer than `everyMs`; a change skipped asks for a later draw. */
  private paced(listener: () => void, everyMs: number): { call: () => void; cancel: () => void } {
    let calledAt = Number.NEGATIVE_INFINITY;
    let later: ReturnType<typeof setTimeout> | null = null;
    const cancel = (): void => {
      if (later !== null) clearTimeout(later);
      later = null;
    };
    const call = (): void => {
      const now = performance.now();
      if (now - calledAt >= everyMs) {
        cancel();
        calledAt = now;
        listener();
        return;
      }
      later ??= setTimeout(
        () => {
          later = null;
          this.request();
        },
        everyMs - (now - calledAt),
      );
    };
    return { call, cancel };
  }

  /** Asks for a shared draw without a store change (a view that must move on while no frame comes). */
  request(): void {
    if (this.listeners.size > 0) this.throttle.schedule();
  }
}

const clocks = new WeakMap<LiveStore, SamplePaintClock>();

/** The store's clock, made at first use and kept as long as the store. */
export function samplePaintClock(store: LiveStore): SamplePaintClock {
  let clock = clocks.get(store);
  if (clock === undefined) {
    clock = new SamplePaintClock(store);
    clocks.set(store, clock);
  }
  return clock;
}
