import path from 'node:path';
import type { ClientConfig } from 'pg';
import { SERVER_INFO_SQL, SERVER_VERSION_SQL, unsupportedVersionMessage } from '@aioscope/core';
import type { AppConfig } from '../config/config.ts';
import { EmbeddedPostgresServer } from '../postgres/embeddedPostgres.ts';
import { clientConfigFromUrl, withSslFromEnvironment } from '../postgres/libpqSsl.ts';
import { closeSession, describeDatabaseError, openSession } from '../postgres/sessions.ts';
import type { Logger } from '../system/logger.ts';
import { findFreePort } from '../system/processes.ts';
import { withPasswordLookup } from './passwordLookup.ts';
import type { TargetDefinition } from './target.ts';

/** A start-up failure the user can fix: printed as one line, exit code 2. */
export class StartupError extends Error {
  readonly exitCode = 2;
}

/** Where the one server to watch comes from: the embedded one, a URL, or the PG* variables psql reads. */
export type TargetSource = Extract<AppConfig['target'], { kind: 'embedded' | 'url' | 'environment' }>;

export interface ResolvedTarget {
  definition: TargetDefinition;
  /** The embedded cluster when aioscope runs one; its owner stops it. */
  embedded: EmbeddedPostgresServer | null;
}

export interface ResolveOptions {
  /** Folder of the embedded cluster's files (`<dataDir>/pg18`). */
  dataDir: string;
  /** Keep going when an external server is unreachable (it is watched until it answers). */
  waitForDb: boolean;
  log: Logger;
}

/** "user@host:port/db" for display: never the password. */
export function describeConnection(config: ClientConfig, env: NodeJS.ProcessEnv): string {
  const user = config.user ?? env.PGUSER ?? env.USER ?? 'postgres';
  const host = config.host ?? env.PGHOST ?? env.PGHOSTADDR ?? 'localhost';
  const port = config.port ?? env.PGPORT ?? 5432;
  const database = config.database ?? env.PGDATABASE ?? user;
  return `${user}@${host}:${port}/${database}`;
}

function externalClientConfig(source: Exclude<TargetSource, { kind: 'embedded' }>): ClientConfig {
  // Fields, not the string: the relation resolver connects to other databases by overriding `database`.
  // node-postgres reads PGHOST, PGPORT, PGUSER and PGDATABASE itself; the password aioscope looks up.
  try {
    if (source.kind === 'url') return withPasswordLookup(clientConfigFromUrl(source.connectionString));
    return withPasswordLookup(withSslFromEnvironment({}));
  } catch (error) {
    // The URL was checked at the flag; what is left is PGSSLMODE and its files, in one sentence.
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
}

/** Connects once before starting: a server we cannot watch is a start-up error, not a dashboard. */
async function checkExternalTarget(definition: TargetDefinition): Promise<string> {
  let client;
  try {
    client = await openSession(definition.clientConfig, { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  } catch (error) {
    throw new StartupError(`cannot connect to ${definition.name}: ${describeDatabaseError(error)}`);
  }
  try {
    // The version first: the fuller server-info query fails on servers too old to watch.
    const row = (await client.query<{ version: string; version_num: number }>(SERVER_VERSION_SQL)).rows[0];
    if (row === undefined) throw new StartupError(`${definition.name} did not answer the version query`);
    const refusal = unsupportedVersionMessage(row.version, Number(row.version_num));
    if (refusal !== null) throw new StartupError(`${definition.name}: ${refusal}`);
    await client.query(SERVER_INFO_SQL);
    return row.version;
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`cannot read server info from ${definition.name}: ${describeDatabaseError(error)}`);
  } finally {
    await closeSession(client);
  }
}

/**
 * The one way a target is made, for `start` and `lab` alike: the embedded cluster is started (and
 * created on first use); an external server is connected to once and its version checked.
 */
export async function resolveTarget(source: TargetSource, options: ResolveOptions): Promise<ResolvedTarget> {
  if (source.kind === 'embedded') {
    options.log.info('starting embedded PostgreSQL 18 ...');
    const embedded = await EmbeddedPostgresServer.start({
      rootDir: path.join(options.dataDir, 'pg18'),
      port: await findFreePort(),
    });
    return {
      definition: {
        id: 'embedded',
        name: 'embedded PostgreSQL 18',
        kind: 'embedded',
        clientConfig: embedded.connectionConfig,
      },
      embedded,
    };
  }
  const clientConfig = externalClientConfig(source);
  const definition: TargetDefinition = {
    id: 'server',
    name: describeConnection(clientConfig, process.env),
    kind: 'external',
    clientConfig,
  };
  try {
    const version = await checkExternalTarget(definition);
    options.log.info(`watching ${definition.name} (PostgreSQL ${version}); aioscope runs nothing on it`);
  } catch (error) {
    // A version refusal is final; an unreachable server is worth waiting for when asked to.
    if (!options.waitForDb || !(error instanceof StartupError) || !error.message.startsWith('cannot connect'))
      throw error;
    options.log.warn(`${error.message}; retrying (--wait-for-db)`);
  }
  return { definition, embedded: null };
}
