/**
 * Appends to an array kept at most `capacity` long, dropping the oldest items. Mutates and returns
 * the array: callers own it and it is on the hot path of every tick.
 */
export function appendBounded<T>(items: T[], item: T, capacity: number): T[] {
  items.push(item);
  if (items.length > capacity) items.splice(0, items.length - capacity);
  return items;
}

/** Drops items older than `oldestT` from the front of a time-ordered array. */
export function trimBefore<T extends { t: number }>(items: T[], oldestT: number): T[] {
  let drop = 0;
  while (drop < items.length && (items[drop] as T).t < oldestT) drop++;
  if (drop > 0) items.splice(0, drop);
  return items;
}
