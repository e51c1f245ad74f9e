import pg from 'pg';
import type { ClientConfig } from 'pg';
import { DATABASE_NAME_SQL, RELATION_SQL, type RelationFile, type ResolvedRelation } from '@aioscope/core';
import { APPLICATION_NAME } from '../postgres/sessions.ts';

/** A resolved name is kept this long before its size is read again (tables grow). */
const REFRESH_AFTER_MS = 10_000;
/** After a failed lookup, wait this long before trying that relation again. */
const RETRY_AFTER_MS = 10_000;
/** One small pool per database, closed when idle. */
const POOL_IDLE_MS = 30_000;
const MAX_DATABASES = 16;
const MAX_CACHED_RELATIONS = 2_000;

interface Entry {
  value: ResolvedRelation | null;
  readAt: number;
}

/**
 * Maps relation files from pg_aios.target_desc to names and sizes. pg_filenode_relation() only
 * works inside the relation's own database, so the resolver keeps a tiny pool per database.
 * Lookups are synchronous against the cache; misses are resolved in the background.
 */
export class RelationResolver {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Set<string>();
  private readonly pools = new Map<number, pg.Pool>();
  private readonly databaseNames = new Map<number, string>();
  private closed = false;

  constructor(private readonly clientConfig: ClientConfig) {}

  lookup(file: RelationFile): ResolvedRelation | undefined {
    const key = `${file.databaseOid}/${file.tablespaceOid}/${file.relfilenode}/${file.fork}`;
    const entry = this.cache.get(key);
    const now = Date.now();
    const stale =
      entry === undefined || now - entry.readAt > (entry.value === null ? RETRY_AFTER_MS : REFRESH_AFTER_MS);
    if (stale && !this.pending.has(key) && !this.closed) {
      this.pending.add(key);
      void this.resolve(file)
        .then((value) => this.remember(key, value))
        .catch(() => this.remember(key, null))
        .finally(() => this.pending.delete(key));
    }
    return entry?.value ?? undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.pools.values()].map((pool) => pool.end().catch(() => undefined)));
    this.pools.clear();
  }

  private remember(key: string, value: ResolvedRelation | null): void {
    if (this.cache.size >= MAX_CACHED_RELATIONS) this.cache.clear();
    this.cache.set(key, { value, readAt: Date.now() });
  }

  private async resolve(file: RelationFile): Promise<ResolvedRelation | null> {
    // Shared catalogs (global/) resolve from any database.
    const pool = await this.poolFor(file.databaseOid === 0 ? null : file.databaseOid);
    if (pool === null) return null;
    const tablespace = file.tablespaceOid === 1663 ? 0 : file.tablespaceOid;
    const result = await pool.query<{ name: string; blocks: number }>(RELATION_SQL, [
      tablespace,
      file.relfilenode,
      file.fork,
    ]);
    const row = result.rows[0];
    return row === undefined ? null : { name: row.name, blocks: Number(row.blocks) };
  }

  private async poolFor(databaseOid: number | null): Promise<pg.Pool | null> {
    if (databaseOid === null) return this.pool(0, this.clientConfig.database);
    const existing = this.pools.get(databaseOid);
    if (existing !== undefined) return existing;
    let name = this.databaseNames.get(databaseOid);
    if (name === undefined) {
      const home = this.pool(0, this.clientConfig.database);
      const row = (await home.query<{ datname: string }>(DATABASE_NAME_SQL, [databaseOid])).rows[0];
      if (row === undefined) return null;
      name = row.datname;
      this.databaseNames.set(databaseOid, name);
    }
    if (this.pools.size >= MAX_DATABASES) return null;
    return this.pool(databaseOid, name);
  }

  private pool(key: number, database: string | undefined): pg.Pool {
    const existing = this.pools.get(key);
    if (existing !== undefined) return existing;
    const pool = new pg.Pool({
      ...this.clientConfig,
      ...(database === undefined ? {} : { database }),
      application_name: APPLICATION_NAME,
      statement_timeout: 2_000,
      max: 1,
      idleTimeoutMillis: POOL_IDLE_MS,
      connectionTimeoutMillis: 5_000,
    });
    pool.on('error', () => undefined);
    this.pools.set(key, pool);
    return pool;
  }
}
