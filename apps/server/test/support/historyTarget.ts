import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parseConfig, type AppConfig } from '../../src/config/config.ts';
import type { EmbeddedPostgresServer } from '../../src/postgres/embeddedPostgres.ts';
import type { HistoryReader } from '../../src/history/historyReader.ts';
import { startAioscope, type RunningAioscope } from '../../src/app/server.ts';
import { TEST_DATA_ROOT } from './testPostgres.ts';

/** A connection URL for --db, as a user would type it. */
export function urlOf(server: EmbeddedPostgresServer): string {
  const { user, password, port } = server.connectionConfig;
  return `postgres://${String(user)}:${encodeURIComponent(String(password))}@127.0.0.1:${String(port)}/postgres`;
}

/** A fresh data folder for one test (the history store lives in it). */
export async function freshDataDir(name: string): Promise<string> {
  const dir = path.join(TEST_DATA_ROOT, name);
  await rm(dir, { recursive: true, force: true });
  return dir;
}

export function historyConfig(server: EmbeddedPostgresServer, dataDir: string, extra: string[] = []): AppConfig {
  const parsed = parseConfig(
    ['--db', urlOf(server), '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extra],
    {},
  );
  if (parsed.ok !== true) throw new Error(`config: ${JSON.stringify(parsed)}`);
  return parsed.config;
}

export const quietLog = { info: (): void => undefined, warn: (): void => undefined };

/** aioscope in this process watching `server`, with its one target's history. */
export async function startWatching(
  config: AppConfig,
  log = quietLog,
): Promise<{ running: RunningAioscope; targetId: string; history: HistoryReader }> {
  const running = await startAioscope(config, log);
  const targetId = [...running.monitors.keys()][0] ?? '';
  const history = running.history.get(targetId);
  if (history === undefined) throw new Error(`no history for ${targetId}`);
  return { running, targetId, history };
}

/** The value, or a failed test naming what was missing (instead of a non-null assertion). */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what}`);
  return value;
}
