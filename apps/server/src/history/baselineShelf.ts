import type { Baseline } from '@aioscope/spec';

/**
 * Baselines as every store keeps them: one row each, its recording file's bytes beside what the
 * list shows. A table apart from the recorder's, so retention (which drops and deletes only raw
 * samples, roll-ups and events) never touches it: a baseline stays until it is removed.
 */
export interface BaselineShelf {
  /** Keeps one; 'nameTaken' (and nothing written) when its target already has one of that name. */
  keepBaseline(baseline: Baseline, file: Uint8Array): Promise<'kept' | 'nameTaken'>;
  /** Every baseline of every target, newest first, without their files. */
  listBaselines(): Promise<Baseline[]>;
  /** Its recording file; null if there is no such baseline. */
  baselineFile(id: string): Promise<Uint8Array | null>;
  /** false if there was no such baseline. */
  removeBaseline(id: string): Promise<boolean>;
}

/** The store is not open (recording paused, or refused): baselines can be neither read nor kept. */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor(label: string) {
    super(`${label} is not open`);
  }
}

/** The columns both engines select, in the order baselineOfRow reads them. */
export const BASELINE_COLUMNS = [
  'id',
  'target',
  'target_name',
  'name',
  'range_from',
  'range_to',
  'bytes',
  'created_by',
  'created_at',
] as const;

/** The row in BASELINE_COLUMNS order, whichever driver read it (bigint and numeric text alike). */
export function baselineOfRow(row: readonly unknown[]): Baseline {
  const [id, target, targetName, name, from, to, bytes, createdBy, createdAt] = row;
  return {
    id: String(id),
    targetId: String(target),
    targetName: String(targetName),
    name: String(name),
    from: Number(from),
    to: Number(to),
    bytes: Number(bytes),
    createdBy: createdBy === null || createdBy === undefined ? null : String(createdBy),
    createdAt: Number(createdAt),
  };
}

/** The values to insert, in BASELINE_COLUMNS order, then the file. */
export function baselineRowValues(baseline: Baseline): (string | number | null)[] {
  const { id, targetId, targetName, name, from, to, bytes, createdBy, createdAt } = baseline;
  return [id, targetId, targetName, name, from, to, bytes, createdBy, createdAt];
}
