import type pg from 'pg';
import type {
  HistoryEvent,
  HistoryExtent,
  HistoryFrames,
  HistoryRange,
  IoStatDelta,
  LiveFrame,
  ProcessesSnapshot,
  RollupPoint,
} from '@aioscope/spec';
import { PG_TYPES, describeAtSql } from '../descriptionHistory.ts';
import { emptyHistoryFrames, type HistoryReader } from '../historyReader.ts';
import { RAW_KIND, storeExtent, type StoreState, type TargetDescription } from '../storeEngine.ts';
import { RAW_CHUNK_MS, ROLLUP_STEP_AGGREGATES, rollupPointsOf } from '../storeSchema.ts';
import { PG_SCHEMA } from './pgStoreSchema.ts';

const DESCRIBE_AT = describeAtSql(`${PG_SCHEMA}.target_descriptions`, PG_TYPES);

export type PgRead = <T>(query: (pool: pg.Pool) => Promise<T>, closed: T) => Promise<T>;

/**
 * How far back the scan map and processes table in force at a range's start are looked for: as
 * far as the embedded store looks (its chunk and the one before), so both answer alike.
 */
const LOOKBACK_MS = 2 * RAW_CHUNK_MS;
/** Raw rows scanned back for them, newest first, before giving up. */
const LOOKBACK_ROWS = 8;

interface RawRow {
  kind: number;
  bodies: string;
}

/** One target's past in the shared store; an empty past while the store is closed (extent says why). */
export class PgHistoryReader implements HistoryReader {
  constructor(
    readonly targetId: string,
    private readonly state: StoreState,
    private readonly describeTarget: () => TargetDescription,
    private readonly read: PgRead,
  ) {}

  describe(): Promise<TargetDescription> {
    return Promise.resolve(this.describeTarget());
  }

  async describeAt(t: number): Promise<TargetDescription> {
    const json = await this.read(async (pool) => {
      const { rows } = await pool.query<{ description: string }>(DESCRIBE_AT, [this.targetId, t]);
      return rows[0]?.description;
    }, undefined);
    return json === undefined ? this.describeTarget() : (JSON.parse(json) as TargetDescription);
  }

  async extent(): Promise<HistoryExtent> {
    const kept = await this.read(
      async (pool) => {
        const { rows } = await pool.query<{ raw_from: number | null; raw_to: number | null }>(
          `SELECT min(first_t) AS raw_from, max(last_t) AS raw_to FROM ${PG_SCHEMA}.raw WHERE target = $1`,
          [this.targetId],
        );
        const rollups = await pool.query<{ first: number | null; last: number | null }>(
          `SELECT min(t) AS first, max(t) AS last FROM ${PG_SCHEMA}.rollups WHERE target = $1`,
          [this.targetId],
        );
        const raw = rows[0];
        const steps = rollups.rows[0];
        return {
          raw: present(raw?.raw_from) && present(raw?.raw_to) ? { from: raw.raw_from, to: raw.raw_to } : null,
          rollups: present(steps?.first) && present(steps?.last) ? { from: steps.first, to: steps.last } : null,
        };
      },
      { raw: null, rollups: null },
    );
    return storeExtent(this.targetId, this.state, kept);
  }

  async frames(range: HistoryRange): Promise<HistoryFrames> {
    const result = emptyHistoryFrames(this.targetId, range);
    return this.read(async (pool) => {
      // A row holds one second: the seconds that overlap the range, then its samples within it.
      const { rows } = await pool.query<RawRow>(
        `SELECT kind, bodies FROM ${PG_SCHEMA}.raw WHERE target = $1 AND second >= $2 AND second < $3 ` +
          'AND last_t >= $4 ORDER BY second, first_t',
        [this.targetId, Math.floor(range.from / 1000) * 1000, range.to, range.from],
      );
      for (const row of rows) {
        for (const sample of JSON.parse(row.bodies) as { t: number }[]) {
          if (sample.t < range.from || sample.t >= range.to) continue;
          if (row.kind === RAW_KIND.frame) result.frames.push(sample as LiveFrame);
          else if (row.kind === RAW_KIND.ioDelta) result.ioDeltas.push(sample as IoStatDelta);
          else result.processes.push(sample as ProcessesSnapshot);
        }
      }
      // Two rows of one second (two batches) keep their order; a late row's samples sort in.
      for (const list of [result.frames, result.ioDeltas, result.processes]) list.sort((a, b) => a.t - b.t);
      result.scansBefore = await this.newestBefore<LiveFrame>(
        pool,
        `kind = ${RAW_KIND.frame} AND has_scans`,
        range.from,
        (frame) => frame.scans !== undefined,
      );
      result.processesBefore = await this.newestBefore<ProcessesSnapshot>(
        pool,
        `kind = ${RAW_KIND.processes}`,
        range.from,
        () => true,
      );
      return result;
    }, result);
  }

  /**
   * Roll-ups of [from, to): the 1 s rows whose second starts in the range, added up per step in SQL
   * (sums and maxima), the wait maps too, one row per step and wait. Steps without frames or
   * pg_stat_io reads are left out, as in the embedded store.
   */
  async rollups(range: HistoryRange, stepMs: number): Promise<RollupPoint[]> {
    const params = [this.targetId, stepMs, range.from, range.to];
    const where = `FROM ${PG_SCHEMA}.rollups WHERE target = $1 AND t >= $3 AND t < $4`;
    type Rows = unknown[][];
    const [steps, waits] = await this.read(
      async (pool): Promise<[Rows, Rows]> => [
        (
          await pool.query({
            text:
              `SELECT floor(t / $2) * $2 AS step, ${ROLLUP_STEP_AGGREGATES} ${where} ` +
              'GROUP BY step HAVING sum(frames) > 0 OR sum(stat_reads) > 0 ORDER BY step',
            values: params,
            rowMode: 'array',
          })
        ).rows as Rows,
        (
          await pool.query({
            text:
              `SELECT floor(t / $2) * $2 AS step, entry.key, sum(entry.value::float8) FROM ${PG_SCHEMA}.rollups, ` +
              "jsonb_each_text(waits) AS entry WHERE target = $1 AND t >= $3 AND t < $4 AND waits <> '{}'::jsonb " +
              'GROUP BY step, entry.key',
            values: params,
            rowMode: 'array',
          })
        ).rows as Rows,
      ],
      [[], []] as [Rows, Rows],
    );
    return rollupPointsOf(steps, waits);
  }

  async events(range: HistoryRange): Promise<HistoryEvent[]> {
    const rows = await this.read(
      async (pool) =>
        (
          await pool.query<{ t: number; kind: string; message: string }>(
            `SELECT t, kind, message FROM ${PG_SCHEMA}.events WHERE target = $1 AND t >= $2 AND t < $3 ORDER BY t`,
            [this.targetId, range.from, range.to],
          )
        ).rows,
      [],
    );
    return rows.map((row) => ({ t: row.t, kind: row.kind as HistoryEvent['kind'], message: row.message }));
  }

  /** The newest sample before `before` that `wanted` accepts, within the look-back. */
  private async newestBefore<T extends { t: number }>(
    pool: pg.Pool,
    where: string,
    before: number,
    wanted: (sample: T) => boolean,
  ): Promise<T | null> {
    const { rows } = await pool.query<{ bodies: string }>(
      `SELECT bodies FROM ${PG_SCHEMA}.raw WHERE target = $1 AND ${where} AND first_t < $2 AND second >= $3 ` +
        `ORDER BY second DESC, first_t DESC LIMIT ${LOOKBACK_ROWS}`,
      [this.targetId, before, before - LOOKBACK_MS],
    );
    let newest: T | null = null;
    for (const row of rows) {
      for (const sample of JSON.parse(row.bodies) as T[]) {
        if (sample.t < before && wanted(sample) && (newest === null || sample.t > newest.t)) newest = sample;
      }
      if (newest !== null) return newest;
    }
    return newest;
  }
}

/** An aggregate's answer over no rows is NULL. */
function present(value: number | null | undefined): value is number {
  return value !== null && value !== undefined;
}
