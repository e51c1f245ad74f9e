import { formatDuration } from '@aioscope/core';
import { historyRangeQuerySchema, type HistoryRange, type TargetSummary } from '@aioscope/spec';
import type { ZodError } from 'zod';
import type { HistoryCatalog, HistoryReader } from '../history/historyReader.ts';
import type { OpenedRecordings } from '../history/openedRecordings.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import { targetParamsSchema } from './targets.ts';

/** Where a target's past is read from: a recording opened in memory, or the recorder's store. */
export interface HistorySources {
  monitors: ReadonlyMap<string, TargetMonitor>;
  recordings: OpenedRecordings;
  /** The recorder's store; absent when this process records nothing. */
  history?: HistoryCatalog;
  /** Targets a targets file reload removed: their past stays readable, marked as no longer watched. */
  unwatched?: () => readonly TargetSummary[];
}

export type Refusal = { ok: false; status: 400 | 404; error: string };

export function firstIssue(error: ZodError): string {
  return error.issues[0]?.message ?? 'invalid parameters';
}

/** 400 for a malformed id, 404 for an unknown target or a live target whose history is not kept. */
export function findHistory(sources: HistorySources, params: unknown): { ok: true; reader: HistoryReader } | Refusal {
  const parsed = targetParamsSchema.safeParse(params);
  if (!parsed.success) return { ok: false, status: 400, error: firstIssue(parsed.error) };
  const { id } = parsed.data;
  const opened = sources.recordings.get(id);
  if (opened !== undefined) return { ok: true, reader: opened };
  if (!sources.monitors.has(id)) {
    const gone = sources.unwatched?.().find((target) => target.id === id);
    if (gone?.unwatchedSince !== undefined) {
      // Recorded here, or (--store) by the replica that sampled it, into the store shared with it.
      const kept = sources.history?.get(id) ?? sources.history?.elsewhere?.(id);
      if (kept !== undefined) return { ok: true, reader: unwatchedReader(kept) };
    }
    const shared = sources.history?.elsewhere?.(id);
    if (shared !== undefined) return { ok: true, reader: shared };
    return { ok: false, status: 404, error: `unknown target "${id}"` };
  }
  const reader = sources.history?.get(id);
  if (reader === undefined) {
    return {
      ok: false,
      status: 404,
      error: `no history is kept for target "${id}" (recording is off in this process)`,
    };
  }
  return { ok: true, reader };
}

/**
 * The past of a target removed from the targets file, read as before; its extent says recording
 * stopped and why, instead of the store's "recording" that goes on for the others.
 */
function unwatchedReader(kept: HistoryReader): HistoryReader {
  return {
    targetId: kept.targetId,
    extent: async () => ({
      ...(await kept.extent()),
      recording: {
        state: 'off',
        reason: 'no longer watched (removed from the targets file); what was recorded stays readable',
      },
    }),
    frames: (range) => kept.frames(range),
    rollups: (range, stepMs) => kept.rollups(range, stepMs),
    events: (range) => kept.events(range),
    describe: () => kept.describe(),
    describeAt: (t) => kept.describeAt(t),
  };
}

/** from < to, both epoch ms, and no longer than what the endpoint serves; the message names the limit. */
export function parseRange(
  query: unknown,
  maxMs: number,
  what: string,
  hint = '',
): { ok: true; range: HistoryRange } | Refusal {
  const parsed = historyRangeQuerySchema.safeParse(query ?? {});
  if (!parsed.success) return { ok: false, status: 400, error: firstIssue(parsed.error) };
  const range = parsed.data;
  if (range.to - range.from > maxMs) {
    return {
      ok: false,
      status: 400,
      error: `range too long: ${what} at most ${formatDuration(maxMs, 'limit')} (asked ${formatDuration(range.to - range.from, 'limit')})${hint}`,
    };
  }
  return { ok: true, range };
}
