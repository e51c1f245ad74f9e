import fp from 'fastify-plugin';
import { resolveTarget, type Logger, type ResolvedTarget, type TargetSource } from '../targets/resolveTarget.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The watched server, and the embedded cluster when aioscope runs one. */
    target: ResolvedTarget;
  }
}

export interface TargetPluginOptions {
  source: TargetSource;
  dataDir: string;
  waitForDb: boolean;
  log: Logger;
  /** Told when the embedded cluster exits without being asked to (not during close). */
  onEmbeddedExit?: (code: number | null) => void;
}

/** Resolves the target; owns the embedded cluster when there is one and stops it last on close. */
export const targetPlugin = fp<TargetPluginOptions>(
  async (app, options) => {
    const target = await resolveTarget(options.source, options);
    app.decorate('target', target);
    const embedded = target.embedded;
    if (embedded === null) return;
    let closing = false;
    embedded.onUnexpectedExit((code) => {
      if (!closing) options.onEmbeddedExit?.(code);
    });
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', async () => {
      await embedded.stop();
    });
  },
  { name: 'aioscope-target' },
);
