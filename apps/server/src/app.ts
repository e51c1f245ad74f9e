import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { Server as SocketServer } from 'socket.io';
import { createLiveHub, type LiveHubOptions } from './live/liveHub.ts';
import { registerAccessControl } from './plugins/access.ts';
import type { LabService } from './lab/labService.ts';
import { registerLabRoutes } from './routes/lab.ts';
import { registerTargetRoutes } from './routes/targets.ts';
import type { TargetMonitor } from './sampler/targetMonitor.ts';

export interface AppOptions {
  monitors: ReadonlyMap<string, TargetMonitor>;
  /** Folder of the built web app (apps/web/dist); the page says how to build it when absent. */
  webRoot: string;
  logLevel?: string;
  /** The scan lab, when this process offers one. */
  lab?: LabService;
  /** Required on every request and socket when set (listening beyond loopback). */
  token?: string;
  /** Live transport limits (tests only). */
  live?: Pick<LiveHubOptions, 'maxJoinsPerWindow'>;
}

export interface BuiltApp {
  app: FastifyInstance;
  io: SocketServer;
}

/** The HTTP + socket.io application, without process concerns, so tests can build and inject it. */
export async function buildApp(options: AppOptions): Promise<BuiltApp> {
  const app = Fastify({
    logger: { level: options.logLevel ?? 'warn' },
    bodyLimit: 64 * 1024,
  });

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
      },
    },
  });

  if (options.token !== undefined) registerAccessControl(app, options.token);

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error, url: request.url }, 'request failed');
      return reply.code(500).send({ error: 'internal error' });
    }
    return reply.code(status).send({ error: error.message });
  });

  registerTargetRoutes(app, options.monitors);
  if (options.lab !== undefined) registerLabRoutes(app, options.lab);
  else app.get('/api/lab', () => ({ embedded: false, unavailable: 'the scan lab is not available in this process' }));

  const indexHtml = path.join(options.webRoot, 'index.html');
  if (existsSync(indexHtml)) {
    await app.register(fastifyStatic, { root: options.webRoot, wildcard: false });
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

  const io = createLiveHub(app.server, options.monitors, {
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.live ?? {}),
  });
  // Upgraded websocket connections are not the HTTP server's to close: end them before it closes.
  app.addHook('preClose', async () => {
    io.disconnectSockets(true);
    io.engine.close();
  });
  return { app, io };
}
