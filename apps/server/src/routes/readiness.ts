import type { FastifyInstance } from 'fastify';
import { OPEN_READY_ROUTE } from '../http/access.ts';
import type { RecordingStatus } from '../history/storeEngine.ts';

/** One thing a replica depends on, and why it is not usable now. */
export interface DependencyReadiness {
  ok: boolean;
  /** 'embedded': the history is this process's own DuckDB file, nothing to reach. */
  kind: 'embedded' | 'postgres' | 'none' | 'redis';
  reason: string | null;
}

export interface Readiness {
  ready: boolean;
  store: DependencyReadiness;
  adapter: DependencyReadiness;
}

export interface ReadinessProbes {
  /** The shared store (--store), as the last ownership check found it; absent: the embedded store. */
  store?: () => { connected: boolean; storeError: string | null };
  /**
   * Recording into the shared store: paused while its writes fail though the ownership's session
   * answers (a store refused as newer than this aioscope, a full disk, a missing privilege).
   */
  recording?: () => RecordingStatus;
  /** The live adapter's Redis (--adapter); absent: no adapter. */
  adapter?: () => { ok: boolean; reason: string | null };
}

/**
 * Readiness, apart from liveness (/api/health): a replica whose store or Redis does not answer
 * still samples and serves what it owns, so it must not be restarted, but a load balancer or an
 * orchestrator should know it cannot record, take over targets or relay other replicas' targets.
 */
export function readinessOf(probes: ReadinessProbes): Readiness {
  const store: DependencyReadiness =
    probes.store === undefined ? { ok: true, kind: 'embedded', reason: null } : sharedStoreReadiness(probes);
  const adapter: DependencyReadiness =
    probes.adapter === undefined ? { ok: true, kind: 'none', reason: null } : { ...probes.adapter(), kind: 'redis' };
  return { ready: store.ok && adapter.ok, store, adapter };
}

function sharedStoreReadiness(probes: ReadinessProbes): DependencyReadiness {
  const { connected, storeError } = probes.store?.() ?? { connected: false, storeError: null };
  if (!connected)
    return {
      ok: false,
      kind: 'postgres',
      reason: `the shared store does not answer: ${storeError ?? 'not connected'}`,
    };
  const recording = probes.recording?.();
  if (recording?.state === 'paused')
    return {
      ok: false,
      kind: 'postgres',
      reason: `recording into the shared store is paused: ${recording.reason ?? ''}`,
    };
  return { ok: true, kind: 'postgres', reason: null };
}

/** 200 when ready, 503 with the reasons when not. Open without the token, as /api/health (http/access.ts). */
export function registerReadinessRoute(app: FastifyInstance, probes: ReadinessProbes): void {
  app.get(OPEN_READY_ROUTE, (_request, reply) => {
    const readiness = readinessOf(probes);
    return reply.code(readiness.ready ? 200 : 503).send(readiness);
  });
}
