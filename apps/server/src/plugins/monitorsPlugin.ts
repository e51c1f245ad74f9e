import fp from 'fastify-plugin';
import type { TargetSummary, TargetsFileState } from '@aioscope/spec';
import { MonitorRegistry, type FleetEntryView, type MonitorChanges } from '../fleet/monitorRegistry.ts';
import { TargetOwnership } from '../fleet/targetOwnership.ts';
import { TargetsLeftTheFile } from '../fleet/targetsLeftTheFile.ts';
import type { ReplicaState } from '../metrics/replicaMetrics.ts';
import { TargetsFileWatcher } from '../fleet/targetsFileWatcher.ts';
import { TargetMonitor } from '../sampler/targetMonitor.ts';
import type { Logger } from '../system/logger.ts';
import type { RateSetting } from '../targets/targetsFile.ts';

/** What the app knows of the fleet beyond the monitors: their changes, labels and the targets file. */
export interface FleetInfo {
  changes: MonitorChanges;
  view(id: string): FleetEntryView | undefined;
  targetsFile(): TargetsFileState | null;
  /**
   * Targets removed by a reload, marked with `unwatchedSince`: the summary of those sampled here
   * (MonitorRegistry.unwatched), else the one `lastRelayed` gives, else what the file said
   * (TargetsLeftTheFile: with --store, every replica lists them, not only their last sampler).
   */
  unwatched(lastRelayed?: (id: string) => TargetSummary | undefined): readonly TargetSummary[];
  /** This replica's part when it shares a store with others (--store); null otherwise. */
  replica: (() => ReplicaState) | null;
  /**
   * With --store: whether what is recorded here may be written now, the targets another replica
   * took while the store was away, and another replica's word that it took one (TargetOwnership);
   * null otherwise.
   */
  ownership: Pick<TargetOwnership, 'unconfirmed' | 'onLost' | 'takenElsewhere'> | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** One monitor per watched target, by target id; changes in place when the targets file is reloaded. */
    monitors: ReadonlyMap<string, TargetMonitor>;
    fleet: FleetInfo;
  }
}

export interface MonitorsPluginOptions {
  sampleRate: RateSetting;
  /** --rate-budget as a share of one core. */
  budgetShare: number;
  /** The targets file to follow (reload on SIGHUP and on change), or null. */
  targetsFile: string | null;
  /**
   * --store: processes started with the same shared store share the targets, each sampled by the
   * one replica that owns it (fleet/targetOwnership.ts); null samples every target here.
   */
  sharedStore: { connectionString: string; replicaId: string; /** ReplicaState.label */ label: string } | null;
  log: Logger;
}

/** Starts a monitor per target; follows the targets file; stops every monitor on close. */
export const monitorsPlugin = fp<MonitorsPluginOptions>(
  async (app, options) => {
    const demoTarget = app.demo === null ? null : app.target.definition.id;
    const registry = new MonitorRegistry({
      defaultRate: options.sampleRate,
      budgetShare: options.budgetShare,
      log: options.log.info,
      create: (target, startHz) =>
        new TargetMonitor(target.definition, {
          sampleRateHz: startHz,
          demoWorkload: target.definition.id === demoTarget,
          onConsumerError: (event, error) =>
            app.log.error({ err: error, event }, 'a consumer of monitor events failed'),
        }),
    });
    const ownership =
      options.sharedStore === null ? null : new TargetOwnership({ ...options.sharedStore, log: options.log });
    // Only the targets this replica owns get a monitor; the targets file says which exist.
    let listed = app.fleetTargets;
    const leftTheFile = new TargetsLeftTheFile();
    // One apply at a time, each with the ownership as it is when its turn comes.
    let applying: Promise<unknown> = Promise.resolve();
    const applyOwned = (): ReturnType<MonitorRegistry['apply']> => {
      const next = applying.then(() => {
        const owned = ownership?.state().owned;
        if (owned === undefined) return registry.apply(listed);
        const [mine, elsewhere] = [listed.filter((t) => owned.has(t.definition.id)), new Set<string>()];
        for (const t of listed) if (!owned.has(t.definition.id)) elsewhere.add(t.definition.id);
        return registry.apply(mine, elsewhere);
      });
      applying = next.catch(() => undefined);
      return next;
    };
    // Awaited by the ownership: a target given back stops being sampled before its lock goes.
    const stopFollowingOwnership = ownership?.onChange(() => applyOwned().then(() => undefined));
    ownership?.setTargets(listed.map((t) => t.definition.id));
    await ownership?.start();
    await applyOwned();
    const watcher =
      options.targetsFile === null
        ? null
        : new TargetsFileWatcher({
            file: options.targetsFile,
            apply: async (targets) => {
              leftTheFile.follow(listed, targets);
              listed = targets;
              ownership?.setTargets(targets.map((t) => t.definition.id));
              return applyOwned();
            },
            log: options.log,
          });
    watcher?.start();
    app.decorate('monitors', registry.monitors);
    app.decorate('fleet', {
      changes: registry,
      view: (id: string) => registry.view(id),
      targetsFile: () => watcher?.state ?? null,
      unwatched: (lastRelayed) => {
        // A target listed again that another replica took is watched, if not here.
        const inFile = new Set(listed.map((t) => t.definition.id));
        const sampledHere = registry.unwatched().filter((t) => !inFile.has(t.id));
        // Alone, this process sampled every target the file dropped: its registry knows them all.
        return ownership === null ? sampledHere : leftTheFile.summaries(sampledHere, lastRelayed);
      },
      ownership,
      replica:
        ownership === null || options.sharedStore === null
          ? null
          : (() => {
              const { replicaId, label } = options.sharedStore;
              return (): ReplicaState => ({
                replicaId,
                label,
                listed: listed.map((t) => t.definition.id),
                handovers: ownership.handovers,
                ...ownership.state(),
              });
            })(),
    });
    app.addHook('onClose', async () => {
      await watcher?.close();
      stopFollowingOwnership?.();
      await registry.close();
      // Last: the targets are given back once their monitors stopped, so no two replicas sample one.
      await ownership?.stop();
    });
  },
  { name: 'aioscope-monitors', dependencies: ['aioscope-target', 'aioscope-demo'] },
);
