/**
 * Runs `callback` in a task of its own right after the next animation tick has been painted; returns
 * a function that cancels it. Nothing runs while the tab is hidden (no animation ticks).
 *
 * Why after a paint: the sample that opens a bucket shows first (the strip draws it in a task as it
 * arrives, samplePaintClock.ts), and the bucket render, every panel and chart at once, follows. A
 * React render started in an animation tick (a state update in a requestAnimationFrame callback)
 * is flushed before the tick paints: when the per-sample views drew there, it held back the sample
 * that opened the bucket, one in ten at 20 Hz and 500 ms buckets, which was the slowest tenth of
 * paint latency. A task posted from the tick runs after its style, layout and paint.
 */
export function afterNextPaint(callback: () => void): () => void {
  let cancelled = false;
  const channel = new MessageChannel();
  const close = (): void => {
    channel.port1.onmessage = null;
    channel.port1.close();
    channel.port2.close();
  };
  channel.port1.onmessage = () => {
    close();
    if (!cancelled) callback();
  };
  const tickRequest = requestAnimationFrame(() => channel.port2.postMessage(null));
  return () => {
    if (cancelled) return;
    cancelled = true;
    cancelAnimationFrame(tickRequest);
    close();
  };
}
