import Fastify, { type FastifyInstance } from 'fastify';
import { aioscopeApp, fastifyOptions } from './app.ts';
import { authProxyOf } from '../config/accessConfig.ts';
import type { AppConfig } from '../config/config.ts';
import { newReplicaId } from '../fleet/targetOwnership.ts';
import type { HistoryCatalog } from '../history/historyReader.ts';
import { checkStoreReachable } from '../history/pgStore/pgStoreEngine.ts';
import type { LabService } from '../lab/labService.ts';
import { demoPlugin } from '../plugins/demoPlugin.ts';
import type { EmbeddedPostgresServer } from '../postgres/embeddedPostgres.ts';
import { historyPlugin } from '../plugins/historyPlugin.ts';
import { labPlugin } from '../plugins/labPlugin.ts';
import { connectLiveAdapter } from '../live/redisAdapter.ts';
import { monitorsPlugin } from '../plugins/monitorsPlugin.ts';
import { targetPlugin } from '../plugins/targetPlugin.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import type { Logger } from '../system/logger.ts';
import { whyFolderUnusable } from '../system/usableFolder.ts';
import { StartupError } from '../targets/resolveTarget.ts';
import { WEB_ROOT } from './webRoot.ts';

export { StartupError } from '../targets/resolveTarget.ts';
export { WEB_ROOT } from './webRoot.ts';

export interface RunningAioscope {
  url: string;
  app: FastifyInstance;
  monitors: ReadonlyMap<string, TargetMonitor>;
  embedded: EmbeddedPostgresServer | null;
  lab: LabService;
  /** Every target's recorded past (answers 'off' under --no-record). */
  history: HistoryCatalog;
  /** Closes everything, each plugin its own resource, in reverse order of start. Idempotent. */
  close(): Promise<void>;
  /** True once close() began. */
  isClosing(): boolean;
}

export interface StartHooks {
  /** The embedded cluster exited without being asked to (not during close). */
  onEmbeddedExit?: (code: number | null) => void;
}

/**
 * The process's server: one Fastify instance built from plugins that each own a resource and its
 * teardown (target and embedded cluster, demo workload, monitors, lab, history recorder, then the
 * app and live hub), started in that order and closed in the reverse one by Fastify itself.
 */
export async function startAioscope(config: AppConfig, log: Logger, hooks: StartHooks = {}): Promise<RunningAioscope> {
  const app = Fastify(fastifyOptions(config.logLevel === 'info' ? 'warn' : config.logLevel));
  const replicaId = newReplicaId();
  let closing = false;
  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing = true;
    closed ??= app.close();
    return closed;
  };
  try {
    // Checked when the start writes there (the embedded cluster, the embedded store); with
    // --store or --no-record it holds only lab results, and may sit on a read-only filesystem.
    const writesDataDir = config.target.kind === 'embedded' || (config.record.enabled && config.record.store === null);
    const folderProblem = writesDataDir ? await whyFolderUnusable(config.dataDir) : null;
    if (folderProblem !== null) throw new StartupError(`--data-dir ${config.dataDir} cannot be used: ${folderProblem}`);
    if (config.record.store !== null && !config.waitForDb) {
      const unusable = await checkStoreReachable(config.record.store);
      // A store refused as newer stays refused: --wait-for-db would start a replica that never records.
      if (unusable !== null)
        throw new StartupError(
          unusable.retryable ? `${unusable.reason} (--wait-for-db starts anyway and keeps retrying)` : unusable.reason,
        );
    }
    const live =
      config.adapter === null ? null : await connectLiveAdapter(config.adapter, { wait: config.waitForDb, log });
    // Last to close: the live hub, closed before it, stops using it.
    if (live !== null) app.addHook('onClose', live.close);
    await app.register(targetPlugin, {
      source: config.target,
      dataDir: config.dataDir,
      waitForDb: config.waitForDb,
      log,
      onEmbeddedExit: (code) => {
        log.warn(`embedded PostgreSQL exited unexpectedly (code ${String(code)})`);
        hooks.onEmbeddedExit?.(code);
      },
    });
    await app.register(demoPlugin, { enabled: config.demoWorkload, tableMb: config.demoTableMb, log });
    await app.register(monitorsPlugin, {
      sampleRate: config.sampleRateHz,
      budgetShare: config.rateBudgetPercent / 100,
      targetsFile: config.target.kind === 'file' ? config.target.path : null,
      sharedStore:
        config.record.store === null
          ? null
          : { connectionString: config.record.store, replicaId, label: config.replicaName ?? replicaId },
      log,
    });
    await app.register(labPlugin, { dataDir: config.dataDir, allowExternal: config.allowLab, log });
    await app.register(historyPlugin, {
      dataDir: config.dataDir,
      record: config.record,
      replicaId,
      replicaLabel: config.replicaName ?? replicaId,
      log,
    });
    await app.register(async (instance) => {
      await instance.register(aioscopeApp, {
        monitors: instance.monitors,
        fleet: instance.fleet,
        lab: instance.lab,
        history: instance.history,
        webRoot: WEB_ROOT,
        ...(config.token === undefined ? {} : { token: config.token }),
        ...(config.authProxy === null ? {} : { authProxy: authProxyOf(config.authProxy) }),
        ...(config.metricsToken === undefined ? {} : { metricsToken: config.metricsToken }),
        ...(live === null
          ? {}
          : {
              live: {
                adapter: live.adapter,
                adapterHealth: live.health,
                ...(config.replicaName === null ? {} : { replicaName: config.replicaName }),
              },
            }),
      });
    });
    await listen(app, config);
  } catch (error) {
    // Whatever had started (the embedded cluster, a monitor) is stopped by its own plugin.
    await close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const tokenQuery = config.token === undefined ? '' : `?token=${encodeURIComponent(config.token)}`;
  return {
    url: `http://${host}:${port}/${tokenQuery}`,
    app,
    monitors: app.monitors,
    embedded: app.target.embedded,
    lab: app.lab,
    history: app.history,
    close,
    isClosing: () => closing,
  };
}

async function listen(app: FastifyInstance, config: AppConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new StartupError(`port ${config.port} on ${config.host} is in use: pick another with --port`);
    if (code === 'EADDRNOTAVAIL') throw new StartupError(`--host ${config.host} is not an address of this machine`);
    throw error;
  }
}
