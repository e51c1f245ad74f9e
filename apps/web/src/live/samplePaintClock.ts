import { drawThrottle, type DrawThrottle } from './drawThrottle.ts';
import type { LiveFrame } from '@aioscope/spec';
import type { LiveStore, StoreChange } from './liveStore.ts';

/**
 * The one draw schedule of a store's per-sample view (the strip): a draw is a task after a store
 * change that brought a sample (drawThrottle.ts), not an animation tick, so a draw of the strip's
 * canvas alone costs the page no frame. Changes without a new sample (the processes table at 2 Hz,
 * pg_stat_io deltas, the target's status) draw nothing: at 20 Hz they were one draw in five, each
 * a canvas handed to the compositor for a picture that moved a few pixels at most (traced on the
 * live page: 24.7 draws a second at 2.6 ms each for 20 samples). The strip moves on without
 * samples through request(). Listeners added together run in the same callback: one draw per
 * sample, whatever the number of views.
 */
export class SamplePaintClock {
  private readonly listeners = new Set<() => void>();
  private readonly throttle: DrawThrottle;
  private unsubscribeStore: (() => void) | null = null;
  /** The store's newest frame when the last draw ran: a change that leaves it in place draws nothing. */
  private drawnNewest: LiveFrame | undefined;

  constructor(
    private readonly store: LiveStore,
    minIntervalMs?: number,
  ) {
    this.throttle = drawThrottle(() => {
      this.drawnNewest = this.store.latestFrame();
      for (const listener of [...this.listeners]) listener();
    }, minIntervalMs);
  }

  /** Calls `listener` at the shared draw after every new sample; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    this.unsubscribeStore ??= this.store.subscribe(this.onChange);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.unsubscribeStore?.();
      this.unsubscribeStore = null;
      this.throttle.cancel();
    };
  }

  /**
   * A frame, or any change that replaced the newest frame: a snapshot after a reconnect, a
   * recorded moment shown (LiveStore.showMoment).
   */
  private readonly onChange = (change: StoreChange): void => {
    if (change === 'frame' || this.store.latestFrame() !== this.drawnNewest) this.throttle.schedule();
  };

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
