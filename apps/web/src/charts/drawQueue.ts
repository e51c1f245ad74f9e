/**
 * Chart draws, one per task. After a bucket render every chart on the page redraws, and uPlot
 * commits each drawing in a microtask of the task that gave it data: all of them in one task of
 * 10–25 ms on a slow machine (measured in a trace of the live page at 20 Hz), during which
 * arriving samples waited to be handled and painted. Run one per task, a sample waits for one
 * chart at most.
 *
 * A chart queued again before it drew keeps its place and draws only its newest data.
 */
export class DrawQueue {
  private readonly waiting = new Map<object, () => void>();
  private posted = false;

  /** `post` runs its argument in a later task of its own. */
  constructor(private readonly post: (run: () => void) => void) {}

  /** Queues `draw` for `owner` (replacing what it had queued); returns a function that takes it out. */
  add(owner: object, draw: () => void): () => void {
    this.waiting.set(owner, draw);
    this.postNext();
    return () => {
      if (this.waiting.get(owner) === draw) this.waiting.delete(owner);
    };
  }

  /** Takes out what `owner` queued (a chart destroyed, or drawn at once for print). */
  remove(owner: object): void {
    this.waiting.delete(owner);
  }

  get size(): number {
    return this.waiting.size;
  }

  private postNext(): void {
    if (this.posted || this.waiting.size === 0) return;
    this.posted = true;
    this.post(() => {
      this.posted = false;
      const next = this.waiting.entries().next();
      if (!next.done) {
        const [owner, draw] = next.value;
        this.waiting.delete(owner);
        try {
          draw();
        } finally {
          this.postNext();
        }
      }
    });
  }
}

/** A task of its own: a message to itself, which, unlike a timeout, is not clamped to 4 ms when chained. */
function postTask(run: () => void): void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    run();
  };
  channel.port2.postMessage(null);
}

/** The page's queue: every uPlot chart draws through it (usePlot). */
export const chartDraws = new DrawQueue(postTask);
