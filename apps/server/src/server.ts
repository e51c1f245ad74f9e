import path from 'node:path';
import type { ClientConfig } from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { SERVER_INFO_SQL, unsupportedVersionMessage, type ServerInfoQueryRow } from '@aioscope/core';
import { buildApp } from './app.ts';
import { REPO_ROOT, type AppConfig } from './config/config.ts';
import { ensureDemoTable } from './demo/demoTable.ts';
import { DemoWorkload } from './demo/demoWorkload.ts';
import { LabService } from './lab/labService.ts';
import { EmbeddedPostgresServer } from './plugins/embeddedPostgres.ts';
import { closeSession, describeDatabaseError, openSession } from './sampler/sessions.ts';
import { TargetMonitor } from './sampler/targetMonitor.ts';
import { findFreePort } from './system/processes.ts';
import type { TargetDefinition } from './targets/target.ts';

export const WEB_ROOT = path.join(REPO_ROOT, 'apps/web/dist');

/** A start-up failure the user can fix: printed as one line, exit code 2. */
export class StartupError extends Error {
  readonly exitCode = 2;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface RunningAioscope {
  url: string;
  monitors: Map<string, TargetMonitor>;
  embedded: EmbeddedPostgresServer | null;
  lab: LabService;
  close(): Promise<void>;
  /** True once close() began, including when a signal handler of a library began it. */
  isClosing(): boolean;
}

/** "user@host:port/db" for display: never the password. */
export function describeConnection(config: ClientConfig, env: NodeJS.ProcessEnv): string {
  const user = config.user ?? env.PGUSER ?? env.USER ?? 'postgres';
  const host = config.host ?? env.PGHOST ?? env.PGHOSTADDR ?? 'localhost';
  const port = config.port ?? env.PGPORT ?? 5432;
  const database = config.database ?? env.PGDATABASE ?? user;
  return `${user}@${host}:${port}/${database}`;
}

function externalClientConfig(config: AppConfig): ClientConfig {
  if (config.target.kind === 'url') {
    // Fields, not the string: the relation resolver connects to other databases by overriding `database`.
    return parseIntoClientConfig(config.target.connectionString);
  }
  return {}; // node-postgres reads PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD and ~/.pgpass itself
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
    const row = (await client.query<ServerInfoQueryRow>(SERVER_INFO_SQL)).rows[0];
    if (row === undefined) throw new StartupError(`${definition.name} did not answer the version query`);
    const refusal = unsupportedVersionMessage(row.version, Number(row.version_num));
    if (refusal !== null) throw new StartupError(refusal);
    return row.version;
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`cannot read server info from ${definition.name}: ${describeDatabaseError(error)}`);
  } finally {
    await closeSession(client);
  }
}

export async function startAioscope(config: AppConfig, log: Logger): Promise<RunningAioscope> {
  const cleanups: (() => Promise<void>)[] = [];
  let closing = false;
  const closeAll = async (): Promise<void> => {
    closing = true;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };

  try {
    let definition: TargetDefinition;
    let embedded: EmbeddedPostgresServer | null = null;
    let workload: DemoWorkload | null = null;

    if (config.target.kind === 'embedded') {
      log.info('starting embedded PostgreSQL 18 ...');
      embedded = await EmbeddedPostgresServer.start({
        rootDir: path.join(config.dataDir, 'pg18'),
        port: await findFreePort(),
      });
      const server = embedded;
      cleanups.push(() => server.stop());
      server.onUnexpectedExit((code) => {
        if (!closing) log.warn(`embedded PostgreSQL exited unexpectedly (code ${String(code)})`);
      });
      definition = {
        id: 'embedded',
        name: 'embedded PostgreSQL 18',
        kind: 'embedded',
        clientConfig: server.connectionConfig,
      };
      if (config.demoWorkload) {
        log.info(`preparing the demo table (${config.demoTableMb} MB; the first start fills it) ...`);
        const setup = await openSession(server.connectionConfig, { statementTimeoutMs: 0, connectTimeoutMs: 10_000 });
        const table = await ensureDemoTable(setup, config.demoTableMb * 1024 * 1024, (relative) =>
          server.resolveDataPath(relative),
        ).finally(() => closeSession(setup));
        workload = new DemoWorkload(server.connectionConfig, table, {
          onError: (message) => {
            if (!closing) log.warn(`demo workload: ${message}`);
          },
        });
        workload.start();
        const running = workload;
        cleanups.push(() => running.stop());
      }
    } else {
      const clientConfig = externalClientConfig(config);
      definition = {
        id: 'server',
        name: describeConnection(clientConfig, process.env),
        kind: 'external',
        clientConfig,
      };
      try {
        const version = await checkExternalTarget(definition);
        log.info(`watching ${definition.name} (PostgreSQL ${version}); aioscope runs nothing on it`);
      } catch (error) {
        // A version refusal is final; an unreachable server is worth waiting for when asked to.
        if (!config.waitForDb || !(error instanceof StartupError) || !error.message.startsWith('cannot connect'))
          throw error;
        log.warn(`${error.message}; retrying (--wait-for-db)`);
      }
    }

    const monitor = new TargetMonitor(definition, {
      sampleRateHz: config.sampleRateHz,
      demoWorkload: workload !== null,
    });
    monitor.start();
    cleanups.push(() => monitor.stop());
    const monitors = new Map([[monitor.id, monitor]]);

    const demo = workload;
    const lab = new LabService({
      target: definition,
      embedded,
      resultsDir: path.join(config.dataDir, 'lab'),
      allowExternal: config.allowLab,
      ...(demo === null ? {} : { pauseDemo: () => demo.pause(), resumeDemo: () => demo.resume() }),
      log: log.info,
    });
    cleanups.push(() => lab.cancel());
    const { app } = await buildApp({
      lab,
      monitors,
      ...(config.token === undefined ? {} : { token: config.token }),
      webRoot: WEB_ROOT,
      logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel,
    });
    try {
      await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE')
        throw new StartupError(`port ${config.port} on ${config.host} is in use: pick another with --port`);
      if (code === 'EADDRNOTAVAIL') throw new StartupError(`--host ${config.host} is not an address of this machine`);
      throw error;
    }
    cleanups.push(() => app.close());
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const tokenQuery = config.token === undefined ? '' : `?token=${encodeURIComponent(config.token)}`;
    return {
      url: `http://${host}:${port}/${tokenQuery}`,
      monitors,
      embedded,
      lab,
      close: closeAll,
      isClosing: () => closing,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
