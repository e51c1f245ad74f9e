import { PG_TYPES, appendDescriptionSql } from '../descriptionHistory.ts';
import { wholeSecondOf, type PendingRow } from '../storeEngine.ts';
import {
  ROLLUP_MAX_COLUMNS,
  ROLLUP_STATE_COLUMN_NAMES,
  ROLLUP_SUM_COLUMNS,
  rollupStateValues,
} from '../storeSchema.ts';
import { PG_SCHEMA, partitionOf, type PartitionedTable } from './pgStoreSchema.ts';

export interface Statement {
  text: string;
  values: unknown[];
}

/** Samples of one target and kind in one second of a batch: one raw row. */
interface RawGroup {
  target: string;
  kind: number;
  second: number;
  firstT: number;
  lastT: number;
  hasScans: boolean;
  bodies: string[];
}

const APPEND_DESCRIPTION = appendDescriptionSql(`${PG_SCHEMA}.target_descriptions`, PG_TYPES);
const ROLLUP_FIELDS = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MAX_COLUMNS];

/**
 * One batch as a few statements: each table's rows go in as arrays through unnest, one statement
 * per table whatever the batch's size (a round trip per table, not per row). Also says which
 * partitions the rows fall in, to be made before the batch's transaction.
 */
export function batchStatements(
  rows: readonly PendingRow[],
  writer: string,
): {
  statements: Statement[];
  partitions: Map<PartitionedTable, Set<number>>;
} {
  const partitions = new Map<PartitionedTable, Set<number>>();
  const need = (table: PartitionedTable, t: number): void => {
    const set = partitions.get(table) ?? new Set<number>();
    set.add(partitionOf(table, t));
    partitions.set(table, set);
  };
  const raw = new Map<string, RawGroup>();
  const rollups: Extract<PendingRow, { table: 'rollup' }>[] = [];
  const events: Extract<PendingRow, { table: 'event' }>[] = [];
  const targets: Extract<PendingRow, { table: 'target' }>[] = [];
  for (const row of rows) {
    switch (row.table) {
      case 'raw': {
        const second = wholeSecondOf(row.t);
        const key = `${row.target}\u0000${row.kind}\u0000${second}`;
        const group = raw.get(key);
        if (group === undefined) {
          raw.set(key, {
            target: row.target,
            kind: row.kind,
            second,
            firstT: row.t,
            lastT: row.t,
            hasScans: row.hasScans,
            bodies: [row.body],
          });
          need('raw', second);
        } else {
          group.firstT = Math.min(group.firstT, row.t);
          group.lastT = Math.max(group.lastT, row.t);
          group.hasScans ||= row.hasScans;
          group.bodies.push(row.body);
        }
        break;
      }
      case 'rollup':
        rollups.push(row);
        need('rollups', row.acc.t);
        break;
      case 'event':
        events.push(row);
        need('events', row.event.t);
        break;
      case 'target':
        targets.push(row);
        break;
    }
  }
  const statements: Statement[] = [];
  if (raw.size > 0) {
    const groups = [...raw.values()];
    statements.push({
      text:
        `INSERT INTO ${PG_SCHEMA}.raw (target, kind, second, first_t, last_t, has_scans, bodies, writer) ` +
        'SELECT *, $8 FROM unnest($1::text[], $2::smallint[], $3::float8[], $4::float8[], $5::float8[], $6::boolean[], $7::text[])',
      values: [
        groups.map((g) => g.target),
        groups.map((g) => g.kind),
        groups.map((g) => g.second),
        groups.map((g) => g.firstT),
        groups.map((g) => g.lastT),
        groups.map((g) => g.hasScans),
        // The bodies are JSON texts already: the array is written around them, never re-encoded.
        groups.map((g) => `[${g.bodies.join(',')}]`),
        writer,
      ],
    });
  }
  if (rollups.length > 0) {
    const accs = rollups;
    const columns = [
      'target',
      't',
      ...ROLLUP_FIELDS.map(([, column]) => column),
      'waits',
      ...ROLLUP_STATE_COLUMN_NAMES,
    ];
    const casts = [
      'text',
      'float8',
      ...ROLLUP_FIELDS.map(() => 'float8'),
      'jsonb',
      ...ROLLUP_STATE_COLUMN_NAMES.map(() => 'float8'),
    ];
    const stateValues = accs.map((row) => rollupStateValues(row.acc));
    statements.push({
      text:
        `INSERT INTO ${PG_SCHEMA}.rollups (${columns.join(', ')}) ` +
        `SELECT * FROM unnest(${casts.map((cast, i) => `$${i + 1}::${cast}[]`).join(', ')})`,
      values: [
        accs.map((row) => row.target),
        accs.map((row) => row.acc.t),
        ...ROLLUP_FIELDS.map(([field]) => accs.map((row) => row.acc[field])),
        accs.map((row) => JSON.stringify(row.acc.waitSums)),
        ...ROLLUP_STATE_COLUMN_NAMES.map((_, index) => stateValues.map((values) => values[index])),
      ],
    });
  }
  if (events.length > 0) {
    const list = events;
    statements.push({
      text:
        `INSERT INTO ${PG_SCHEMA}.events (target, t, kind, message) ` +
        'SELECT * FROM unnest($1::text[], $2::float8[], $3::text[], $4::text[])',
      values: [
        list.map((row) => row.target),
        list.map((row) => row.event.t),
        list.map((row) => row.event.kind),
        list.map((row) => row.event.message),
      ],
    });
  }
  for (const { target, t, description } of targets) {
    statements.push({
      text:
        `INSERT INTO ${PG_SCHEMA}.targets (target, description) VALUES ($1, $2) ` +
        'ON CONFLICT (target) DO UPDATE SET description = EXCLUDED.description',
      values: [target, description],
    });
    statements.push({ text: APPEND_DESCRIPTION, values: [target, t, description] });
  }
  return { statements, partitions };
}
