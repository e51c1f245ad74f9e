import type { RecordingLimits } from '../config/recordingLimits.ts';
import { RAW_CHUNK_MS, rawChunkOf } from './storeSchema.ts';

/** How far one size pass trims roll-ups once no raw chunk is left to drop. */
export const ROLLUP_TRIM_MS = 3_600_000;

export interface RetentionInput {
  now: number;
  limits: RecordingLimits;
  /** Raw chunks in the store (RAW_CHUNK_MS each). */
  rawChunks: readonly number[];
  /** Bytes the store's live blocks and WAL take now. */
  usedBytes: number;
  /** t of the oldest roll-up, null when there is none. */
  oldestRollupT: number | null;
}

export interface RetentionPlan {
  dropRawChunks: number[];
  /** Roll-ups and events before this instant go. */
  rollupsBefore: number;
}

/**
 * What one retention pass removes. By age: raw chunks entirely older than the raw retention, roll-ups
 * and events older than theirs. By size: the oldest raw chunk (never the one being written), one per
 * pass because a chunk's bytes are known only after it is gone; when none is left, the oldest hour
 * of roll-ups. The store measures again and runs another pass while it is over the cap.
 */
export function planRetention(input: RetentionInput): RetentionPlan {
  const { now, limits } = input;
  const rawCutoff = now - limits.rawMs;
  const byAge = input.rawChunks.filter((chunk) => (chunk + 1) * RAW_CHUNK_MS <= rawCutoff);
  let rollupsBefore = now - limits.rollupMs;
  if (input.usedBytes <= limits.maxBytes) return { dropRawChunks: byAge, rollupsBefore };

  const current = rawChunkOf(now);
  const oldestKept = input.rawChunks
    .filter((chunk) => !byAge.includes(chunk) && chunk < current)
    .sort((a, b) => a - b)[0];
  if (byAge.length > 0 || oldestKept !== undefined) {
    return { dropRawChunks: oldestKept === undefined ? byAge : [...byAge, oldestKept], rollupsBefore };
  }
  if (input.oldestRollupT !== null) {
    // Never the last hour: the dashboard's long ranges still need something to draw.
    rollupsBefore = Math.max(rollupsBefore, Math.min(input.oldestRollupT + ROLLUP_TRIM_MS, now - ROLLUP_TRIM_MS));
  }
  return { dropRawChunks: [], rollupsBefore };
}
