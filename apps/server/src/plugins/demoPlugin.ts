import fp from 'fastify-plugin';
import { ensureDemoTable } from '../demo/demoTable.ts';
import { DemoWorkload } from '../demo/demoWorkload.ts';
import { closeSession, openSession } from '../postgres/sessions.ts';
import type { Logger } from '../system/logger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The demo scans on the embedded server, when they run. */
    demo: DemoWorkload | null;
  }
}

export interface DemoPluginOptions {
  enabled: boolean;
  tableMb: number;
  log: Logger;
}

/** The demo table and scan loop on the embedded server; stopped before the server on close. */
export const demoPlugin = fp<DemoPluginOptions>(
  async (app, options) => {
    const embedded = app.target.embedded;
    if (!options.enabled || embedded === null) {
      app.decorate('demo', null);
      return;
    }
    options.log.info(`preparing the demo table (${options.tableMb} MB; the first start fills it) ...`);
    const setup = await openSession(embedded.connectionConfig, { statementTimeoutMs: 0, connectTimeoutMs: 10_000 });
    const table = await ensureDemoTable(setup, options.tableMb * 1024 * 1024, (relative) =>
      embedded.resolveDataPath(relative),
    ).finally(() => closeSession(setup));
    let closing = false;
    const workload = new DemoWorkload(embedded.connectionConfig, table, {
      onError: (message) => {
        if (!closing) options.log.warn(`demo workload: ${message}`);
      },
    });
    workload.start();
    app.decorate('demo', workload);
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', async () => {
      await workload.stop();
    });
  },
  { name: 'aioscope-demo', dependencies: ['aioscope-target'] },
);
