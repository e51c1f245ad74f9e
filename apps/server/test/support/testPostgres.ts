import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../../src/config/config.ts';
import { EmbeddedPostgresServer } from '../../src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../../src/targets/target.ts';

/** Test clusters live apart from the user's `.aioscope/pg18`, and start fresh each run. */
export const TEST_DATA_ROOT = path.join(REPO_ROOT, '.aioscope', 'test');

export { findFreePort as freePort } from '../../src/system/processes.ts';
import { findFreePort } from '../../src/system/processes.ts';

export async function startTestPostgres(
  name: string,
  settings: Record<string, string> = {},
): Promise<EmbeddedPostgresServer> {
  const rootDir = path.join(TEST_DATA_ROOT, name);
  await rm(rootDir, { recursive: true, force: true });
  return EmbeddedPostgresServer.start({ rootDir, port: await findFreePort(), settings });
}

export async function connect(server: EmbeddedPostgresServer, extra: pg.ClientConfig = {}): Promise<pg.Client> {
  const client = new pg.Client({ ...server.connectionConfig, ...extra });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The target aioscope makes of its embedded server, for tests that build monitors or labs on one. */
export function embeddedTarget(server: EmbeddedPostgresServer): TargetDefinition {
  return { id: 'embedded', name: 'embedded PostgreSQL 18', kind: 'embedded', clientConfig: server.connectionConfig };
}
