import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { Server as SocketServer } from 'socket.io';
import { liveHubPlugin, type LiveHubOptions } from '../live/liveHub.ts';
import { relayedTargets } from '../live/remoteTargets.ts';
import { registerAccessControl, type AccessPolicy, type AuthProxy } from '../http/access.ts';
import { drainConnectionsPlugin } from '../plugins/drainConnections.ts';
import type { HistoryCatalog } from '../history/historyReader.ts';
import { OpenedRecordings } from '../history/openedRecordings.ts';
import type { LabService } from '../lab/labService.ts';
import { registerMetricsRoute } from '../metrics/metricsRoute.ts';
import { registerBaselineRoutes } from '../routes/baselines.ts';
import { registerHistoryExportRoutes } from '../routes/historyExport.ts';
import { registerRecordingRoutes } from '../routes/historyRecordings.ts';
import { registerHistoryRoutes } from '../routes/historyRoutes.ts';
import { registerLabRoutes } from '../routes/lab.ts';
import { registerRaceRoutes } from '../routes/race.ts';
import { OverviewTracker } from '../fleet/overviewTracker.ts';
import { registerOverviewRoute } from '../routes/overview.ts';
import { registerReadinessRoute } from '../routes/readiness.ts';
import { registerTargetRoutes } from '../routes/targets.ts';
import type { FleetInfo } from '../plugins/monitorsPlugin.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

export interface AppOptions {
  monitors: ReadonlyMap<string, TargetMonitor>;
  /** Folder of the built web app (apps/web/dist); the page says how to build it when absent. */
  webRoot: string;
  /** The scan lab, when this process offers one. */
  lab?: LabService;
  /** Required on every request and socket when set (listening beyond loopback). */
  token?: string;
  /** Behind a team's auth proxy: its user header, the proxies trusted to send it, the operators. Replaces the token. */
  authProxy?: AuthProxy;
  /** --metrics-token: a bearer that opens GET /metrics alone, whatever guards the rest. */
  metricsToken?: string;
  /** The recorder's store: every live target's past. Absent when nothing is recorded. */
  history?: HistoryCatalog;
  /**
   * Recording files opened in this process (`open FILE` passes the one it loaded). When absent the
   * app keeps its own, so a running aioscope opens dropped files too.
   */
  recordings?: OpenedRecordings;
  /** Targets added and removed at run time, labels and the targets file (fleet.ts); absent in tests. */
  fleet?: FleetInfo;
  /** Live transport limits (tests only). */
  live?: Pick<LiveHubOptions, 'maxJoinsPerWindow' | 'adapter' | 'adapterHealth' | 'replicaName'>;
}

/** Fastify's own options for an aioscope instance, shared by the process and by tests. */
export function fastifyOptions(logLevel: string | undefined): FastifyServerOptions {
  return { logger: { level: logLevel ?? 'warn' }, bodyLimit: 64 * 1024 };
}

/**
 * The HTTP + socket.io application: security headers, access, REST, the built page and the live
 * hub. A plugin, so the process registers it after the resources it serves and tests build it
 * alone (buildApp).
 */
export const aioscopeApp = fp<AppOptions>(
  async (app, options) => {
    // First: its onSend hook must cover every route below.
    await app.register(drainConnectionsPlugin);
    await app.register(helmet, {
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          connectSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'"],
          // aioscope serves plain HTTP: a browser would ask for the scripts over https at any name
          // but loopback's (a team's http://aioscope.internal) and draw a blank page.
          upgradeInsecureRequests: null,
        },
      },
      // Whether the address has TLS is for the proxy that terminates it to say, not this process.
      strictTransportSecurity: false,
    });
    await app.register(cookie);
    const access: AccessPolicy =
      options.authProxy !== undefined
        ? { kind: 'proxy', proxy: options.authProxy }
        : options.token !== undefined
          ? { kind: 'token', token: options.token }
          : { kind: 'loopback' };
    registerAccessControl(app, access, options.metricsToken);
    // Who the page is talking for, and whether it may start what writes to a watched server.
    app.get('/api/me', (request) => request.identity);

    app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
      const status = error.statusCode ?? 500;
      if (status >= 500) {
        request.log.error({ err: error, url: request.url }, 'request failed');
        return reply.code(500).send({ error: 'internal error' });
      }
      return reply.code(status).send({ error: error.message });
    });

    const recordings = options.recordings ?? new OpenedRecordings();
    // The app serves them from here on: their databases and folders go with it.
    app.addHook('onClose', () => recordings.closeAll());
    const historySources = {
      monitors: options.monitors,
      recordings,
      ...(options.fleet === undefined ? {} : { unwatched: options.fleet.unwatched }),
      ...(options.history === undefined ? {} : { history: options.history }),
    };
    // --adapter: targets other replicas sample are listed too, their live view, processes and audit
    // relayed from their owner (live/remoteTargets.ts); app.io exists once the live hub is registered.
    const remote =
      options.live?.adapter === undefined ? undefined : relayedTargets(() => app.io, options.live.adapterHealth);
    registerTargetRoutes(
      app,
      options.monitors,
      recordings,
      options.fleet?.unwatched,
      remote,
      options.live?.replicaName,
      options.history?.storedDescription,
    );
    registerMetricsRoute(app, options.monitors, options.fleet?.replica ?? undefined);
    const replica = options.fleet?.replica ?? null;
    const adapterHealth = options.live?.adapterHealth;
    const recording = options.history?.recording;
    registerReadinessRoute(app, {
      ...(replica === null ? {} : { store: replica }),
      ...(replica === null || recording === undefined ? {} : { recording: () => recording() }),
      ...(adapterHealth === undefined ? {} : { adapter: adapterHealth.now }),
    });
    const overview = new OverviewTracker({
      monitors: options.monitors,
      ...(options.fleet === undefined
        ? {}
        : { changes: options.fleet.changes, view: options.fleet.view, targetsFile: options.fleet.targetsFile }),
      ...(options.live?.replicaName === undefined ? {} : { replicaName: options.live.replicaName }),
    });
    app.addHook('onClose', async () => overview.close());
    registerOverviewRoute(app, overview, remote);
    registerHistoryRoutes(app, historySources);
    registerHistoryExportRoutes(app, historySources);
    await registerRecordingRoutes(app, recordings);
    registerBaselineRoutes(app, historySources, { operatorsNamed: (options.authProxy?.operators.size ?? 0) > 0 });
    if (options.lab !== undefined) {
      registerLabRoutes(app, options.lab);
      registerRaceRoutes(app, options.lab, options.monitors);
    } else
      app.get('/api/lab', () => ({ embedded: false, unavailable: 'the scan lab is not available in this process' }));

    const indexHtml = path.join(options.webRoot, 'index.html');
    if (existsSync(indexHtml)) {
      // wildcard: files are looked up when asked for, not listed at start, so a dashboard rebuilt
      // while this process runs (a second `npm start` after a source change) is served whole.
      await app.register(fastifyStatic, { root: options.webRoot, wildcard: true, dotfiles: 'ignore' });
      app.setNotFoundHandler((request, reply) => {
        if (request.url.startsWith('/api/') || request.url.startsWith('/socket.io')) {
          return reply.code(404).send({ error: `no route ${request.method} ${request.url.split('?')[0] ?? ''}` });
        }
        return reply.sendFile('index.html');
      });
    } else {
      app.get('/', (_request, reply) =>
        reply.type('text/plain').send('The web app is not built: run `npm run build` (npm start does it for you).'),
      );
    }

    const ownership = options.fleet?.ownership ?? null;
    const listedBy = options.fleet?.replica ?? null;
    await app.register(liveHubPlugin, {
      monitors: options.monitors,
      ...(options.fleet === undefined ? {} : { changes: options.fleet.changes }),
      notLive: (targetId) =>
        recordings.summary(targetId) === undefined
          ? undefined
          : `"${targetId}" is a recording file: it has no live stream; read it through /api/targets/${targetId}/history`,
      access,
      ...(ownership === null
        ? {}
        : { onTakenElsewhere: (targetId: string) => void ownership.takenElsewhere(targetId) }),
      ...(listedBy === null ? {} : { isListed: (targetId: string) => listedBy().listed.includes(targetId) }),
      overviewRows: () => overview.overview().rows,
      ...(options.live ?? {}),
    });
  },
  { name: 'aioscope-app' },
);

export interface BuiltApp {
  app: FastifyInstance;
  io: SocketServer;
}

/** The application alone, around monitors a test made, ready to inject or listen. */
export async function buildApp(options: AppOptions & { logLevel?: string }): Promise<BuiltApp> {
  const { logLevel, ...appOptions } = options;
  const app = Fastify(fastifyOptions(logLevel));
  await app.register(aioscopeApp, appOptions);
  await app.ready();
  return { app, io: app.io };
}
