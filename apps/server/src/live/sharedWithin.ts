/**
 * A call whose promise is shared by the calls made within `ms` after it: ten open overview pages
 * on a replica ask the other replicas for their rows once a second, not ten times (each answer is
 * every row of 10 minutes of sparklines, through Redis). A call that rejects is not shared after
 * it settles: the next call tries again. The window is on the monotonic clock: a wall clock set
 * back would have shared one answer until it caught up.
 */
export function sharedWithin<T>(
  ms: number,
  call: () => Promise<T>,
  now: () => number = () => performance.now(),
): () => Promise<T> {
  let last: { at: number; result: Promise<T> } | null = null;
  return () => {
    const at = now();
    if (last !== null && at - last.at < ms) return last.result;
    const result = call();
    const entry = { at, result };
    last = entry;
    result.catch(() => {
      if (last === entry) last = null;
    });
    return result;
  };
}
