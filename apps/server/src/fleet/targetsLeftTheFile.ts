import type { TargetKind, TargetSummary } from '@aioscope/spec';
import type { FleetTarget } from '../targets/targetsFile.ts';
import { MAX_UNWATCHED } from './monitorRegistry.ts';

interface Left {
  name: string;
  kind: TargetKind;
  /** When this process saw the file stop listing it, epoch ms. */
  since: number;
}

/**
 * The targets the targets file stopped listing, as this process saw the file change. With
 * replicas sharing a store (--store), only the replica that sampled a target has its monitor's
 * last summary (MonitorRegistry.unwatched); every replica reads the same file and the same store,
 * so each must list the target as no longer watched and serve what was recorded of it, whichever
 * replica a load balancer sends the page to.
 */
export class TargetsLeftTheFile {
  /** Oldest first, as MonitorRegistry keeps its own. */
  private readonly left = new Map<string, Left>();

  /** A reload replaced the `before` list with `after`; a target listed again leaves this list. */
  follow(before: readonly FleetTarget[], after: readonly FleetTarget[], now = Date.now()): void {
    const listed = new Set(after.map((target) => target.definition.id));
    for (const id of listed) this.left.delete(id);
    for (const { definition } of before) {
      if (listed.has(definition.id) || this.left.has(definition.id)) continue;
      this.left.set(definition.id, { name: definition.name, kind: definition.kind, since: now });
    }
    for (const oldest of this.left.keys()) {
      if (this.left.size <= MAX_UNWATCHED) break;
      this.left.delete(oldest);
    }
  }

  /**
   * Every target that left the file: the summary of the one this process sampled (`sampledHere`,
   * the monitor's last word) wins, then the last one relayed from the replica that sampled it,
   * then what the file said of it, with a status that says its last state is not known here.
   */
  summaries(
    sampledHere: readonly TargetSummary[],
    lastRelayed: (id: string) => TargetSummary | undefined = () => undefined,
  ): TargetSummary[] {
    const known = new Set(sampledHere.map((summary) => summary.id));
    const others = [...this.left]
      .filter(([id]) => !known.has(id))
      .map(([id, left]): TargetSummary => {
        const relayed = lastRelayed(id);
        return relayed === undefined ? summaryFromFile(id, left) : { ...relayed, unwatchedSince: left.since };
      });
    return [...sampledHere, ...others];
  }
}

function summaryFromFile(id: string, left: Left): TargetSummary {
  return {
    id,
    name: left.name,
    kind: left.kind,
    status: {
      state: 'error',
      message: 'removed from the targets file; another replica sampled it, and its last state is not known here',
      since: left.since,
      lastFrameAt: null,
      skippedTicks: 0,
    },
    server: null,
    capabilities: null,
    sampleRateHz: 0,
    statRateHz: 0,
    demoWorkload: false,
    recording: null,
    unwatchedSince: left.since,
  };
}
