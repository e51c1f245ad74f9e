import path from 'node:path';
import fp from 'fastify-plugin';
import { LabService } from '../lab/labService.ts';
import type { Logger } from '../system/logger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    lab: LabService;
  }
}

export interface LabPluginOptions {
  dataDir: string;
  allowExternal: boolean;
  log: Logger;
}

/** The scan lab for the target; a running experiment is cancelled on close. */
export const labPlugin = fp<LabPluginOptions>(
  async (app, options) => {
    const demo = app.demo;
    const lab = new LabService({
      target: app.target.definition,
      embedded: app.target.embedded,
      resultsDir: path.join(options.dataDir, 'lab'),
      allowExternal: options.allowExternal,
      ...(demo === null ? {} : { pauseDemo: () => demo.pause(), resumeDemo: () => demo.resume() }),
      log: options.log.info,
    });
    app.decorate('lab', lab);
    app.addHook('onClose', async () => {
      await lab.cancel();
    });
  },
  { name: 'aioscope-lab', dependencies: ['aioscope-target', 'aioscope-demo'] },
);
