import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { HistoryEventKind, HistoryExtent, TargetSummary } from '@aioscope/spec';
import { emptyHistoryFrames, type HistoryCatalog, type HistoryReader } from '../history/historyReader.ts';
import { HistoryStore } from '../history/historyStore.ts';
import { DuckDbStoreEngine } from '../history/duckdbStoreEngine.ts';
import { PostgresStoreEngine } from '../history/pgStore/pgStoreEngine.ts';
import { Recorder } from '../history/recorder.ts';
import type { RecordingLimits } from '../config/recordingLimits.ts';
import type { TargetDescription } from '../history/storeEngine.ts';
import { followMonitors } from '../fleet/monitorRegistry.ts';
import { sharedAuditCache } from '../metrics/auditCache.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import type { Logger } from '../system/logger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every target's past, by target id (recorded by this process and earlier ones). */
    history: HistoryCatalog;
  }
}

export interface HistoryPluginOptions {
  dataDir: string;
  /** store: the shared PostgreSQL store's URL (--store), or null for the data folder's DuckDB file. */
  record: RecordingLimits & { enabled: boolean; store: string | null };
  /** This process among replicas sharing the store (newReplicaId). */
  replicaId: string;
  /** Its name in the history's markers when it shares the store with others (--replica-name, else replicaId). */
  replicaLabel: string;
  log: Logger;
}

/**
 * The recorder: one store under `<data dir>/history`, one Recorder per monitor (a consumer of its
 * events, touching no sampler code), and the catalog the history routes read. Registered after
 * the monitors and the lab; closed before them, writing what is still in memory.
 */
export const historyPlugin = fp<HistoryPluginOptions>(
  async (app, options) => {
    const { enabled, store: store_, ...limits } = options.record;
    if (!enabled) {
      const readers = new Map<string, HistoryReader>();
      const stop = followMonitors(app.monitors, app.fleet.changes, (m) => {
        readers.set(
          m.id,
          offReader(m.id, limits, () => describe(m.summary())),
        );
        return () => undefined;
      });
      app.decorate('history', { get: (id: string) => readers.get(id) });
      app.addHook('onClose', async () => stop());
      return;
    }
    const recorders = new Map<string, Recorder>();
    const engine =
      store_ === null
        ? new DuckDbStoreEngine(path.join(options.dataDir, 'history'))
        : new PostgresStoreEngine(store_, options.replicaId);
    const ownership = app.fleet.ownership;
    const store = await HistoryStore.start({
      engine,
      limits,
      log: options.log,
      ...(ownership === null ? {} : { writeGate: () => ownership.unconfirmed() }),
      onRecordingChange: (status, dropped) => {
        for (const recorder of recorders.values()) {
          if (status.state === 'paused')
            recorder.addEvent('recordingPaused', `recording paused: ${status.reason ?? ''}`);
          else recorder.addEvent('recordingResumed', `recording resumed (${dropped} records dropped while paused)`);
        }
      },
    });
    // Another replica sampled these while the store was away: what this one recorded meanwhile
    // would interleave with its frames.
    const stopDiscarding = ownership?.onLost((targets) => {
      const dropped = store.discard(targets);
      if (dropped > 0) options.log.warn(`history: ${dropped} unwritten rows of ${[...targets].join(', ')} dropped`);
    });
    const readers = new Map<string, HistoryReader>();
    // Targets added by a reload get a recorder; a removed one's recorder stops (its past stays readable).
    const record = async (monitor: TargetMonitor): Promise<void> => {
      const previous = await store.storedDescription(monitor.id);
      if (app.monitors.get(monitor.id) !== monitor) return; // removed while the store answered
      // From the summary to the subscriptions without an await: no status change falls between.
      const recorder = new Recorder(
        monitor,
        store,
        monitor.summary(),
        sharedAuditCache(monitor),
        ownership === null ? null : options.replicaLabel,
      );
      recorder.start(previous);
      const paused = store.recordingStatus();
      if (paused.state === 'paused') recorder.addEvent('recordingPaused', `recording paused: ${paused.reason ?? ''}`);
      recorders.get(monitor.id)?.stop();
      recorders.set(monitor.id, recorder);
      recorderOf.set(monitor, recorder);
      readers.set(
        monitor.id,
        store.reader(monitor.id, () => recorder.describe()),
      );
    };
    const recorderOf = new WeakMap<TargetMonitor, Recorder>();
    const starting = new Set<Promise<void>>();
    const stopFollowing = followMonitors(app.monitors, app.fleet.changes, (monitor) => {
      const started = record(monitor).catch((error: unknown) =>
        options.log.warn(`recording ${monitor.id}: ${error instanceof Error ? error.message : String(error)}`),
      );
      starting.add(started);
      void started.finally(() => starting.delete(started));
      return () => {
        const recorder = recorderOf.get(monitor);
        recorder?.stop();
        if (recorder !== undefined && recorders.get(monitor.id) === recorder) recorders.delete(monitor.id);
      };
    });
    await Promise.all(starting);
    const lab = {
      addEvent: (kind: HistoryEventKind, message: string): void =>
        recorders.get(app.target.definition.id)?.addEvent(kind, message),
    };
    const stopLab = app.lab.onRun(({ kind, experiment }) => {
      const what = `lab experiment ${experiment.id} (${experiment.definition.variants.map((v) => v.name).join(' vs ')})`;
      if (kind === 'started') lab.addEvent('labRunStarted', `${what} started`);
      else lab.addEvent('labRunEnded', `${what} ${experiment.status}`);
    });
    app.decorate('history', {
      get: (id: string) => readers.get(id),
      ...(store_ === null
        ? {}
        : {
            elsewhere: sharedReaders(store, app),
            storedDescription: (id: string) => store.storedDescription(id),
            recording: () => store.recordingStatus(),
          }),
      baselines: store.baselines,
    });
    app.addHook('onClose', async () => {
      stopDiscarding?.();
      stopLab();
      stopFollowing();
      await Promise.all(starting);
      for (const recorder of recorders.values()) recorder.stop();
      await store.close();
    });
  },
  { name: 'aioscope-history', dependencies: ['aioscope-monitors', 'aioscope-lab'] },
);

/**
 * Replicas sharing a store: the past of a listed target another replica samples, or of one the
 * targets file dropped, is read from the store as its owner's is, described as the store last
 * described it (its name until that is read).
 */
function sharedReaders(store: HistoryStore, app: FastifyInstance): (id: string) => HistoryReader | undefined {
  const readers = new Map<string, HistoryReader>();
  const descriptions = new Map<string, TargetDescription>();
  return (id) => {
    if (app.monitors.has(id) || app.fleet.replica === null) return undefined;
    // Listed in the targets file, or dropped from it: its past stays readable (TargetsLeftTheFile).
    const known = app.fleet.replica().listed.includes(id) || app.fleet.unwatched().some((t) => t.id === id);
    if (!known) return undefined;
    void store.storedDescription(id).then(
      (stored) => stored !== null && descriptions.set(id, stored),
      () => undefined,
    );
    let reader = readers.get(id);
    if (reader === undefined) {
      reader = store.reader(id, () => descriptions.get(id) ?? unreadDescription(id));
      readers.set(id, reader);
    }
    return reader;
  };
}

function unreadDescription(id: string): TargetDescription {
  return { target: { id, name: id }, server: null, capabilities: null, sampleRateHz: 0, statRateHz: 0 };
}

function describe(summary: TargetSummary): TargetDescription {
  const { id, name, server, capabilities, sampleRateHz, statRateHz } = summary;
  return { target: { id, name }, server, capabilities, sampleRateHz, statRateHz };
}

/** --no-record: the past is not kept, and every answer says so. */
function offReader(targetId: string, limits: RecordingLimits, description: () => TargetDescription): HistoryReader {
  const extent: HistoryExtent = {
    targetId,
    recording: { state: 'off', reason: 'recording is off (--no-record)' },
    raw: null,
    rollups: null,
    retention: { rawMs: limits.rawMs, rollupMs: limits.rollupMs, maxBytes: limits.maxBytes },
    bytesOnDisk: 0,
  };
  return {
    targetId,
    extent: () => Promise.resolve(extent),
    frames: (range) => Promise.resolve(emptyHistoryFrames(targetId, range)),
    rollups: () => Promise.resolve([]),
    events: () => Promise.resolve([]),
    describe: () => Promise.resolve(description()),
    describeAt: () => Promise.resolve(description()),
  };
}
