import { ROLLUP_BASE_STEP_MS, type HistoryExtent } from '@aioscope/spec';

/** What is kept: from the oldest sample or roll-up to the newest. */
export function keptRange(extent: HistoryExtent): { from: number; to: number } | null {
  const from = Math.min(extent.raw?.from ?? Infinity, extent.rollups?.from ?? Infinity);
  const to = Math.max(extent.raw?.to ?? -Infinity, extent.rollups?.to ?? -Infinity);
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return null;
  return { from, to };
}

/**
 * The kept range with its start rounded down and end up to the minute: the strip's query (up to a
 * day of roll-ups) is asked again once a minute as the kept range grows, not at every extent
 * refresh. Only the query: the strip draws and names the kept range itself (rounded, 12.8 s
 * recorded read "2 min" and a 5-minute file "6 min").
 */
export function stripQueryRange(kept: { from: number; to: number }): { from: number; to: number } {
  const step = 60 * ROLLUP_BASE_STEP_MS;
  return { from: Math.floor(kept.from / step) * step, to: Math.ceil((kept.to + 1) / step) * step };
}

/**
 * Where each event's marker sits on the strip, as a fraction of its width. The events are asked
 * for over the minute-rounded query range and the kept range is read at other moments, so an
 * event can fall a little outside what the strip draws: one newer than the newest kept sample (a
 * lab run that ended a moment ago) sits at the right edge rather than past the screen's edge, and
 * one older than the oldest (the target connecting just before its first sample was kept) at the
 * left edge rather than out of sight.
 */
export function eventPlaces<T extends { t: number }>(
  events: readonly T[],
  kept: { from: number; to: number },
): { event: T; fraction: number }[] {
  const span = Math.max(1, kept.to - kept.from);
  return events.map((event) => ({ event, fraction: Math.min(1, Math.max(0, (event.t - kept.from) / span)) }));
}
