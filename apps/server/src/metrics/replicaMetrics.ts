import { Counter, Gauge, type Registry } from 'prom-client';

/** What a replica sharing a store says of its part (fleet/targetOwnership.ts). */
export interface ReplicaState {
  replicaId: string;
  /**
   * The `replica` label of every series: --replica-name when given, the same across restarts so
   * a restart does not start new series; otherwise the replica id (host, pid and a nonce).
   */
  label: string;
  /** Every target of the targets file, owned here or not. */
  listed: readonly string[];
  owned: ReadonlySet<string>;
  /** Targets taken over or given back since this replica started. */
  handovers: number;
  /** Replicas sharing the store at the last ownership check. */
  replicas: number;
  /** Whether the store answered the last ownership check. */
  connected: boolean;
  /** Why it did not, or null. */
  storeError: string | null;
}

/**
 * A replica's own series, read at each scrape. Every series of the registry gets a `replica`
 * label: a Prometheus scraping every replica sees each target once (from its owner, the only
 * replica that samples it) and can tell the replicas apart. `aioscope_target_owned` is exported
 * by every replica for every listed target, 1 by its owner and 0 by the others, so "nobody owns
 * it" is a query (AioscopeTargetUnowned in deploy/prometheus/aioscope-rules.yml).
 */
export function registerReplicaMetrics(registry: Registry, state: () => ReplicaState): void {
  registry.setDefaultLabels({ replica: state().label });
  const registers = [registry];
  new Gauge({
    name: 'aioscope_target_owned',
    help: 'A target of the targets file: 1 on the replica that owns (samples) it through the shared store, 0 on the others.',
    labelNames: ['target'],
    registers,
    collect() {
      const { listed, owned } = state();
      this.reset();
      for (const target of listed) this.set({ target }, owned.has(target) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'aioscope_replica_owned_targets',
    help: 'Targets this replica owns (samples), out of the targets file.',
    registers,
    collect() {
      this.set(state().owned.size);
    },
  });
  new Gauge({
    name: 'aioscope_replicas',
    help: 'Replicas sharing the store, as this replica counted them at its last ownership check (every 250 ms).',
    registers,
    collect() {
      this.set(state().replicas);
    },
  });
  new Gauge({
    name: 'aioscope_replica_store_connected',
    help: 'Whether the shared store answered this replica’s last ownership check (1) or not (0: it keeps sampling what it owns).',
    registers,
    collect() {
      this.set(state().connected ? 1 : 0);
    },
  });
  let counted = 0;
  new Counter({
    name: 'aioscope_replica_handovers_total',
    help: 'Targets this replica took over or gave back since it started.',
    registers,
    collect() {
      const { handovers } = state();
      if (handovers > counted) this.inc(handovers - counted);
      counted = handovers;
    },
  });
}
