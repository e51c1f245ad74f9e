import type { ClientConfig } from 'pg';
import {
  AUDIT_PG_CONFIG_SQL,
  LAB_CONTROL_TIMEOUT_MS,
  LAB_WARM_UP_SETUP_SQL,
  labBuildTimeoutMs,
  labDropSql,
  labWarmUpSql,
} from '@aioscope/core';
import { ensureDemoTable, type DemoTableInfo } from '../demo/demoTable.ts';
import type { EmbeddedPostgresServer } from '../postgres/embeddedPostgres.ts';
import { describeDatabaseError } from '../postgres/sessions.ts';
import { LabSessions, type LabSession } from './labSessions.ts';

/** The lab's table on the target: made (or found) before an experiment, dropped after one on a user's server. */

/**
 * Creates (or finds) the lab table on a session of its own, allowed to write the whole table, and
 * reads it once when the OS page cache should hold it (warm and shared-buffers-cold runs).
 */
export async function buildLabTable(
  sessions: LabSessions,
  options: {
    tableName: string;
    tableMb: number;
    embedded: EmbeddedPostgresServer | null;
    warmUp: boolean;
    signal: AbortSignal;
  },
): Promise<DemoTableInfo> {
  const { embedded, signal } = options;
  const build = await sessions.openSession(labBuildTimeoutMs(options.tableMb));
  try {
    signal.throwIfAborted();
    const resolve = (relative: string): string => embedded?.resolveDataPath(relative) ?? relative;
    const table = await ensureDemoTable(build.client, options.tableMb * 1024 * 1024, resolve, options.tableName);
    if (options.warmUp) {
      signal.throwIfAborted();
      await build.client.query(LAB_WARM_UP_SETUP_SQL);
      await build.client.query(labWarmUpSql(table.name));
    }
    return table;
  } finally {
    await sessions.close(build);
  }
}

/** Drops the table and then the lab's schema if nothing else is in it; failures are logged, not thrown. */
export async function dropLabTable(
  config: ClientConfig,
  tableName: string,
  log: ((message: string) => void) | undefined,
): Promise<void> {
  const cleanup = new LabSessions(config);
  try {
    const session = await cleanup.openSession(LAB_CONTROL_TIMEOUT_MS);
    for (const sql of labDropSql(tableName)) await session.client.query(sql).catch(() => undefined);
  } catch (error) {
    log?.(`lab: could not drop ${tableName}: ${describeDatabaseError(error)}`);
  } finally {
    await cleanup.closeAll();
  }
}

/**
 * io_method = io_uring needs a build with liburing; without it the server would refuse to start.
 * A configure build lists --with-liburing; an empty line (meson) cannot tell, so it is allowed.
 */
export async function assertIoUringBuild(control: LabSession): Promise<void> {
  const configure = (await control.client.query<{ setting: string }>(AUDIT_PG_CONFIG_SQL)).rows[0]?.setting;
  if (configure !== undefined && configure.trim() !== '' && !configure.includes('--with-liburing')) {
    throw new Error('this PostgreSQL build has no io_uring (built without liburing): compare sync and worker instead');
  }
}
