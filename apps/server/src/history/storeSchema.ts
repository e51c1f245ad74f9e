import { emptyAccumulator, toRollupPoint, type RollupAccumulator } from '@aioscope/core';
import { AIO_STATES, type AioState, type RollupPoint } from '@aioscope/spec';

/**
 * The store's tables. Raw samples live in one table per 10 minutes (`raw_<chunk>`), so retention
 * drops whole tables: DuckDB reuses the blocks of a dropped table, while deleted rows free space
 * only partly (docs/history-store.md). Bodies are JSON text (DuckDB compresses them ~25×); t and
 * target are typed so a range query reads only the chunks and row groups it needs.
 */

export const RAW_CHUNK_MS = 10 * 60_000;

/**
 * The format of a raw row's body: JSON of a LiveFrame, an IoStatDelta or a ProcessesSnapshot as
 * packages/spec defines them (kind says which). Version 1 is the format of the first release. Bump
 * it when a body written before would be misread: a field renamed, removed, retyped or newly
 * required, a unit changed (an added optional field that old bodies simply lack is not such a
 * change). The bump comes with a migration (storeMigrations.ts) that rewrites or tags the rows and
 * sets store_meta.body_version; the store opens only at this version.
 */
export const BODY_VERSION = 1;

export const rawChunkOf = (t: number): number => Math.floor(t / RAW_CHUNK_MS);
export const rawTableName = (chunk: number): string => `raw_${chunk}`;
const RAW_TABLE_PATTERN = /^raw_(\d+)$/;
export function chunkOfTable(name: string): number | null {
  const match = RAW_TABLE_PATTERN.exec(name);
  return match?.[1] === undefined ? null : Number(match[1]);
}

export const createRawTableSql = (chunk: number): string =>
  `CREATE TABLE IF NOT EXISTS ${rawTableName(chunk)} (target VARCHAR NOT NULL, kind UTINYINT NOT NULL, t DOUBLE NOT NULL, has_scans BOOLEAN NOT NULL, body VARCHAR NOT NULL)`;

/** Roll-up columns in the order of RollupAccumulator's numeric fields: sums and maxima, never means. */
export const ROLLUP_SUM_COLUMNS = [
  ['frames', 'frames'],
  ['inflightFrames', 'inflight_frames'],
  ['readsSum', 'reads_sum'],
  ['bytesSum', 'bytes_sum'],
  ['newReads', 'new_reads'],
  ['newReadBytes', 'new_read_bytes'],
  ['workerSamples', 'worker_samples'],
  ['workerBusy', 'worker_busy'],
  ['backlogFrames', 'backlog_frames'],
  ['backlogSum', 'backlog_sum'],
  ['statReads', 'stat_reads'],
  ['statReadBytes', 'stat_read_bytes'],
  ['sampleMsSum', 'sample_ms_sum'],
  ['skippedTicks', 'skipped_ticks'],
] as const;
export const ROLLUP_MAX_COLUMNS = [
  ['readsMax', 'reads_max'],
  ['bytesMax', 'bytes_max'],
  ['backlogMax', 'backlog_max'],
  ['sampleMsMax', 'sample_ms_max'],
] as const;

/**
 * Roll-up columns added by store version 4, after `waits` (ALTER TABLE appends them): the frames
 * whose reads by pg_aios state are summed, and the sum per state. Nullable: a row written before
 * version 4 holds NULL, which reads as not recorded (stateFrames 0, readsByState null), never as
 * 0 reads; a step's sums add only the rows that kept them.
 */
export const ROLLUP_STATE_FRAMES_COLUMN = 'state_frames';
export const ROLLUP_STATE_COLUMNS: readonly (readonly [AioState, string])[] = AIO_STATES.map(
  (state) => [state, `reads_${state.toLowerCase()}_sum`] as const,
);
/** Every version 4 column, in the order the tables hold them. */
export const ROLLUP_STATE_COLUMN_NAMES = [
  ROLLUP_STATE_FRAMES_COLUMN,
  ...ROLLUP_STATE_COLUMNS.map(([, column]) => column),
];

/** The accumulator's version 4 values in ROLLUP_STATE_COLUMN_NAMES order. */
export const rollupStateValues = (acc: RollupAccumulator): number[] => [
  acc.stateFrames,
  ...ROLLUP_STATE_COLUMNS.map(([state]) => acc.stateSums[state]),
];

const rollupColumns = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MAX_COLUMNS].map(([, column]) => `${column} DOUBLE NOT NULL`);

/**
 * rollups: one row per target and second (a late pg_stat_io delta may add a second row for the same
 * second: queries group by step, so rows of one second add up like mergeAccumulators does).
 * waits: the accumulator's waitSums as JSON. events: markers. targets: what describe() returns.
 */
export const SCHEMA_SQL = [
  `CREATE TABLE IF NOT EXISTS rollups (target VARCHAR NOT NULL, t DOUBLE NOT NULL, ${rollupColumns.join(', ')}, waits VARCHAR NOT NULL)`,
  'CREATE TABLE IF NOT EXISTS events (target VARCHAR NOT NULL, t DOUBLE NOT NULL, kind VARCHAR NOT NULL, message VARCHAR NOT NULL)',
  'CREATE TABLE IF NOT EXISTS targets (target VARCHAR PRIMARY KEY, description VARCHAR NOT NULL)',
];

/**
 * The SELECT list of a roll-up query over a step: the sums, the maxima and the version 4 sums, in
 * the order rollupPointsOf reads them (the same SQL on both engines).
 */
export const ROLLUP_STEP_AGGREGATES = [
  ...ROLLUP_SUM_COLUMNS.map(([, column]) => `sum(${column})`),
  ...ROLLUP_MAX_COLUMNS.map(([, column]) => `max(${column})`),
  ...ROLLUP_STATE_COLUMN_NAMES.map((column) => `sum(${column})`),
].join(', ');

/**
 * Roll-up points from a store's two answers, whatever its SQL: `steps` rows of [step, then
 * ROLLUP_STEP_AGGREGATES], `waits` rows of [step, wait, sum]. A version 4 sum of NULL (only rows
 * written before version 4 in the step) is 0 frames: readsByState null.
 */
export function rollupPointsOf(
  steps: readonly (readonly unknown[])[],
  waits: readonly (readonly unknown[])[],
): RollupPoint[] {
  const waitSumsByStep = new Map<number, Record<string, number>>();
  for (const [step, key, sum] of waits) {
    const sums = waitSumsByStep.get(Number(step)) ?? {};
    sums[String(key)] = Number(sum);
    waitSumsByStep.set(Number(step), sums);
  }
  const fields = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MAX_COLUMNS];
  return steps.map((row) => {
    const acc: RollupAccumulator = emptyAccumulator(Number(row[0]));
    fields.forEach(([field], index) => (acc[field] = Number(row[index + 1])));
    const stateAt = fields.length + 1;
    acc.stateFrames = Number(row[stateAt] ?? 0);
    ROLLUP_STATE_COLUMNS.forEach(([state], index) => (acc.stateSums[state] = Number(row[stateAt + 1 + index] ?? 0)));
    acc.waitSums = waitSumsByStep.get(acc.t) ?? {};
    return toRollupPoint(acc);
  });
}
