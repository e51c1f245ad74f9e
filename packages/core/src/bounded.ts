/**
 * Dropping this many items or fewer from the front goes item by item through shift(), which V8
 * does in place by moving the array's start; splice(0, n) copies every kept item instead (16 µs
 * against 0.13 µs per tick for the 2,400 frames of a 120 s window at 20 Hz, Node 20 and 24 alike).
 * A larger drop is rare (a gap in the samples, a lower capacity) and splice does it in one pass.
 */
const SHIFT_AT_MOST = 8;

/** Removes `count` items from the front of `items`, in place. */
function dropFront<T>(items: T[], count: number): void {
  if (count <= 0) return;
  if (count > SHIFT_AT_MOST) {
    items.splice(0, count);
    return;
  }
  for (let i = 0; i < count; i++) items.shift();
}

/**
 * Appends to an array kept at most `capacity` long, dropping the oldest items. Mutates and returns
 * the array: callers own it and it is on the hot path of every tick.
 */
export function appendBounded<T>(items: T[], item: T, capacity: number): T[] {
  items.push(item);
  dropFront(items, items.length - capacity);
  return items;
}

/** Drops items older than `oldestT` from the front of a time-ordered array. */
export function trimBefore<T extends { t: number }>(items: T[], oldestT: number): T[] {
  let drop = 0;
  while (drop < items.length && (items[drop] as T).t < oldestT) drop++;
  dropFront(items, drop);
  return items;
}

/** The sliding window compacts once it skips at least this many dropped items. */
const COMPACT_AT_LEAST = 64;

/**
 * The newest items of a time-ordered series: at most `capacity`, none older than `spanMs` before the
 * newest. Dropped items are skipped by an offset, and the array is copied once they are an eighth of
 * it: each push costs about the same at 2,400 items or 12,000, where even shift() copies every item
 * (an array that large lives where V8 cannot move its start). Dropped items stay referenced until
 * that copy, at most an eighth more than the window.
 */
export class SlidingWindow<T extends { t: number }> {
  private items: T[] = [];
  private head = 0;

  constructor(
    private readonly capacity: number,
    private readonly spanMs: number,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
    const oldestT = item.t - this.spanMs;
    while (this.head < this.items.length && (this.length > this.capacity || (this.items[this.head] as T).t < oldestT)) {
      this.head++;
    }
    if (this.head >= COMPACT_AT_LEAST && this.head * 8 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** The newest `count` items, oldest first, as a new array. */
  newest(count: number): T[] {
    return this.items.slice(Math.max(this.head, this.items.length - Math.max(0, count)));
  }
}
