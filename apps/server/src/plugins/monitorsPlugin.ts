import fp from 'fastify-plugin';
import { TargetMonitor } from '../sampler/targetMonitor.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** One monitor per watched target, by target id. */
    monitors: ReadonlyMap<string, TargetMonitor>;
  }
}

export interface MonitorsPluginOptions {
  sampleRateHz: number;
}

/** Starts a monitor for the target; stops its tickers and sessions on close. */
export const monitorsPlugin = fp<MonitorsPluginOptions>(
  async (app, options) => {
    const monitor = new TargetMonitor(app.target.definition, {
      sampleRateHz: options.sampleRateHz,
      demoWorkload: app.demo !== null,
      onConsumerError: (event, error) => app.log.error({ err: error, event }, 'a consumer of monitor events failed'),
    });
    monitor.start();
    const monitors = new Map([[monitor.id, monitor]]);
    app.decorate('monitors', monitors);
    app.addHook('onClose', async () => {
      await Promise.all([...monitors.values()].map((m) => m.stop()));
    });
  },
  { name: 'aioscope-monitors', dependencies: ['aioscope-target', 'aioscope-demo'] },
);
