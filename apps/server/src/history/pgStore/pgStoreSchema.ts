import type pg from 'pg';
import { ROLLUP_MAX_COLUMNS, ROLLUP_STATE_COLUMN_NAMES, ROLLUP_SUM_COLUMNS } from '../storeSchema.ts';
import type { Migration } from '../migrations.ts';

/**
 * The shared store's tables, in their own schema of the database `--store` names. Every table that
 * grows is partitioned by time (declarative range partitioning), so retention drops whole
 * partitions instead of deleting rows: a DELETE leaves dead tuples for vacuum and bloat behind.
 *
 * raw: one row per target, kind and second (the recorder writes a second once it has ended:
 * openSeconds.ts; a second is two rows only when its sampler stalled within it), its samples a
 * JSON array of the same bodies the embedded store keeps one per row. Twenty frames in one value
 * compress together (TOAST), and the row count, and with it the per-row overhead and index size,
 * is a twentieth of one row per sample. `writer` names the
 * replica that sampled them, so two samplers of one target would show (they must never be).
 */
export const PG_SCHEMA = 'aioscope_history';

export const RAW_PARTITION_MS = 3_600_000;
export const DAY_PARTITION_MS = 86_400_000;

/** The tables partitioned by time, each with the width of its partitions. */
export const PARTITIONED = {
  raw: { column: 'second', widthMs: RAW_PARTITION_MS },
  rollups: { column: 't', widthMs: DAY_PARTITION_MS },
  events: { column: 't', widthMs: DAY_PARTITION_MS },
} as const;
export type PartitionedTable = keyof typeof PARTITIONED;

export const partitionOf = (table: PartitionedTable, t: number): number => Math.floor(t / PARTITIONED[table].widthMs);
export const partitionName = (table: PartitionedTable, index: number): string => `${table}_p${index}`;
const PARTITION_PATTERN = /^(raw|rollups|events)_p(\d+)$/;

export function parsePartitionName(name: string): { table: PartitionedTable; index: number } | null {
  const match = PARTITION_PATTERN.exec(name);
  if (match?.[1] === undefined || match[2] === undefined) return null;
  return { table: match[1] as PartitionedTable, index: Number(match[2]) };
}

/** Creates the partition holding index (idempotent: several replicas may ask at once). */
export function createPartitionSql(table: PartitionedTable, index: number): string {
  const { widthMs } = PARTITIONED[table];
  return (
    `CREATE TABLE IF NOT EXISTS ${PG_SCHEMA}.${partitionName(table, index)} PARTITION OF ${PG_SCHEMA}.${table} ` +
    `FOR VALUES FROM (${index * widthMs}) TO (${(index + 1) * widthMs})`
  );
}

const rollupColumns = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MAX_COLUMNS].map(
  ([, column]) => `${column} double precision NOT NULL`,
);

/**
 * The shared store's versions, on migrations.ts's mechanism (the same one the embedded store
 * uses): each step runs with its version recorded in one transaction. Never edit a released step.
 */
export const PG_STORE_MIGRATIONS: readonly Migration<pg.ClientBase>[] = [
  {
    version: 1,
    describe: 'raw samples by hour, roll-ups and events by day (partitioned), targets',
    up: async (client: pg.ClientBase): Promise<void> => {
      for (const sql of [
        `CREATE TABLE ${PG_SCHEMA}.raw (target text NOT NULL, kind smallint NOT NULL, second double precision NOT NULL, first_t double precision NOT NULL, last_t double precision NOT NULL, has_scans boolean NOT NULL, bodies text NOT NULL, writer text NOT NULL) PARTITION BY RANGE (second)`,
        `CREATE INDEX ON ${PG_SCHEMA}.raw (target, second)`,
        `CREATE TABLE ${PG_SCHEMA}.rollups (target text NOT NULL, t double precision NOT NULL, ${rollupColumns.join(', ')}, waits jsonb NOT NULL) PARTITION BY RANGE (t)`,
        `CREATE INDEX ON ${PG_SCHEMA}.rollups (target, t)`,
        `CREATE TABLE ${PG_SCHEMA}.events (target text NOT NULL, t double precision NOT NULL, kind text NOT NULL, message text NOT NULL) PARTITION BY RANGE (t)`,
        `CREATE INDEX ON ${PG_SCHEMA}.events (target, t)`,
        `CREATE TABLE ${PG_SCHEMA}.targets (target text PRIMARY KEY, description text NOT NULL)`,
      ]) {
        await client.query(sql);
      }
    },
  },
  {
    version: 2,
    describe: 'baselines: marked ranges kept as recording files, untouched by retention',
    up: async (client: pg.ClientBase): Promise<void> => {
      await client.query(
        `CREATE TABLE ${PG_SCHEMA}.baselines (id text PRIMARY KEY, target text NOT NULL, target_name text NOT NULL, ` +
          'name text NOT NULL, range_from double precision NOT NULL, range_to double precision NOT NULL, ' +
          'bytes bigint NOT NULL, created_by text, created_at double precision NOT NULL, file bytea NOT NULL, ' +
          'UNIQUE (target, name))',
      );
    },
  },
  {
    version: 3,
    describe: "targets' descriptions through time, so a range is described as it was recorded",
    up: async (client: pg.ClientBase): Promise<void> => {
      await client.query(
        `CREATE TABLE ${PG_SCHEMA}.target_descriptions (target text NOT NULL, since double precision NOT NULL, description text NOT NULL)`,
      );
      await client.query(`CREATE INDEX ON ${PG_SCHEMA}.target_descriptions (target, since)`);
      // When the latest description took effect is not known: it stands for all that came before.
      await client.query(
        `INSERT INTO ${PG_SCHEMA}.target_descriptions SELECT target, 0, description FROM ${PG_SCHEMA}.targets`,
      );
    },
  },
  {
    version: 4,
    describe: 'roll-ups keep reads in flight by pg_aios state (NULL, not recorded, in the rows before)',
    up: async (client: pg.ClientBase): Promise<void> => {
      // On the partitioned table: every partition, present and future, gets the columns.
      const added = ROLLUP_STATE_COLUMN_NAMES.map((column) => `ADD COLUMN ${column} double precision`);
      await client.query(`ALTER TABLE ${PG_SCHEMA}.rollups ${added.join(', ')}`);
    },
  },
];

/** store_meta never changes shape: it is what an older aioscope reads to refuse a newer store. */
export const META_TABLE = `${PG_SCHEMA}.store_meta`;
export const META_SQL = `CREATE TABLE IF NOT EXISTS ${META_TABLE} (store_version integer NOT NULL, body_version integer NOT NULL)`;

/**
 * Replicas opening one store take this advisory lock while they check and migrate it, so two
 * processes started together never run a step twice; writers take it around creating partitions.
 */
export const STORE_LOCK_KEY = 0x61696f73; // 'aios'
