/**
 * Runs `callback` in a task of its own right after the next animation tick has been painted; returns
 * a function that cancels it. Nothing runs while the tab is hidden (no animation ticks).
 *
 * Why not in the animation tick itself: the per-sample views (strip, "now" figures) draw in that
 * tick, and a React render started there (a state update in a requestAnimationFrame callback) is
 * flushed before the tick paints. The bucket render, every panel and chart at once, then held back
 * the paint of the sample that opened the bucket: one sample in ten at 20 Hz and 500 ms buckets,
 * which is the slowest tenth of paint latency. A task posted from the tick runs after its style,
 * layout and paint, so the sample shows first and the charts follow in the next tick.
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
