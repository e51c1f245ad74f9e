import fp from 'fastify-plugin';
import { readTargetsFile } from '../fleet/targetsFileWatcher.ts';
import { slugOf, type FleetTarget } from '../targets/targetsFile.ts';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../system/logger.ts';
import { resolveTarget, StartupError, type ResolvedTarget } from '../targets/resolveTarget.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The first watched server (the lab's, the demo's), and the embedded cluster when aioscope
     * runs one.
     */
    target: ResolvedTarget;
    /** Every server to watch at start: the one above, each --db, or the targets file's list. */
    fleetTargets: FleetTarget[];
  }
}

export interface TargetPluginOptions {
  source: AppConfig['target'];
  dataDir: string;
  waitForDb: boolean;
  log: Logger;
  /** Told when the embedded cluster exits without being asked to (not during close). */
  onEmbeddedExit?: (code: number | null) => void;
}

const unlabelled = (resolved: ResolvedTarget): FleetTarget => ({
  definition: resolved.definition,
  labels: {},
  rate: null,
});

/**
 * Several --db: each is checked as one would be (all at once), ids are slugs of "user@host:port/db",
 * made unique with a suffix when two URLs describe alike.
 */
async function resolveSeveral(urls: readonly string[], options: TargetPluginOptions): Promise<FleetTarget[]> {
  const resolved = await Promise.all(
    urls.map((connectionString) => resolveTarget({ kind: 'url', connectionString }, options)),
  );
  const taken = new Set<string>();
  return resolved.map((target) => {
    const base = slugOf(target.definition.name) || 'server';
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return unlabelled({ ...target, definition: { ...target.definition, id } });
  });
}

/**
 * Resolves the servers to watch; owns the embedded cluster when there is one and stops it last on
 * close. A targets file's servers are not connected to at start: the file is the fleet, and a
 * server down or refused is shown as such, at start as at reload.
 */
export const targetPlugin = fp<TargetPluginOptions>(
  async (app, options) => {
    const { source } = options;
    let fleet: FleetTarget[];
    let target: ResolvedTarget;
    if (source.kind === 'file' || source.kind === 'urls') {
      if (source.kind === 'urls') fleet = await resolveSeveral(source.connectionStrings, options);
      else {
        try {
          fleet = await readTargetsFile(source.path);
        } catch (error) {
          throw new StartupError(error instanceof Error ? error.message : String(error));
        }
      }
      target = { definition: (fleet[0] as FleetTarget).definition, embedded: null };
    } else {
      target = await resolveTarget(source, options);
      fleet = [unlabelled(target)];
    }
    app.decorate('target', target);
    app.decorate('fleetTargets', fleet);
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
