import type { TargetSummary } from '@aioscope/spec';
import type { FleetTarget, RateSetting } from '../targets/targetsFile.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import { RateGovernor } from './rateGovernor.ts';

/** A monitor joined or left the registry (a targets file reload, or close). */
export interface MonitorChange {
  kind: 'added' | 'removed';
  monitor: TargetMonitor;
}

/** What consumers of `app.monitors` subscribe to, to follow targets added and removed at run time. */
export interface MonitorChanges {
  onChange(listener: (change: MonitorChange) => void): () => void;
}

/**
 * Attaches a consumer to every monitor now in the map and, when `changes` is given, to each one
 * added later, detaching from those removed. `attach` returns the detach function. Returns the
 * function that detaches from all and stops following.
 */
export function followMonitors(
  monitors: ReadonlyMap<string, TargetMonitor>,
  changes: MonitorChanges | undefined,
  attach: (monitor: TargetMonitor) => () => void,
): () => void {
  const attached = new Map<TargetMonitor, () => void>();
  const detach = (monitor: TargetMonitor): void => {
    attached.get(monitor)?.();
    attached.delete(monitor);
  };
  for (const monitor of monitors.values()) attached.set(monitor, attach(monitor));
  const stop = changes?.onChange((change) => {
    if (change.kind === 'removed') detach(change.monitor);
    else if (!attached.has(change.monitor)) attached.set(change.monitor, attach(change.monitor));
  });
  return () => {
    stop?.();
    for (const monitor of [...attached.keys()]) detach(monitor);
  };
}

export interface RegistryOptions {
  /** --rate: a number, or 'auto' (the cost budget). A target's own rate wins. */
  defaultRate: RateSetting;
  /** --rate-budget as a share of one core. */
  budgetShare: number;
  create(target: FleetTarget, startHz: number): TargetMonitor;
  log: (message: string) => void;
}

interface Entry {
  target: FleetTarget;
  rate: RateSetting;
  monitor: TargetMonitor;
  governor: RateGovernor | null;
  /** Where on the interval its ticks fall (leastTakenPhase). */
  phase: number;
}

/** What the overview shows of a target besides its summary. */
export interface FleetEntryView {
  labels: Record<string, string>;
  requested: RateSetting;
}

/** Same server, same way of reaching it, same rate: a reload leaves its monitor alone. */
function sameTarget(a: Entry, target: FleetTarget, rate: RateSetting): boolean {
  const { definition: x } = a.target;
  const y = target.definition;
  return a.rate === rate && x.name === y.name && x.kind === y.kind && sameConfig(x.clientConfig, y.clientConfig);
}

function sameConfig(a: object, b: object): boolean {
  const sorted = (o: object): string => JSON.stringify(Object.entries(o).sort(([k], [l]) => k.localeCompare(l)));
  return sorted(a) === sorted(b);
}

/**
 * The live set of monitors: `monitors` is the map everyone reads (app.monitors), changed in place
 * on reload. Added targets start, removed ones stop, changed ones restart, unchanged ones keep
 * their monitor object (label changes apply without a restart).
 */
/** Targets removed by a reload that are still listed (their recorded past stays readable); the oldest go first. */
export const MAX_UNWATCHED = 100;

export class MonitorRegistry implements MonitorChanges {
  readonly monitors = new Map<string, TargetMonitor>();
  private readonly entries = new Map<string, Entry>();
  /** Removed targets, by id: their last summary, marked with when they stopped being watched. */
  private readonly removed = new Map<string, TargetSummary>();
  private readonly listeners = new Set<(change: MonitorChange) => void>();

  constructor(private readonly options: RegistryOptions) {}

  onChange(listener: (change: MonitorChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  view(id: string): FleetEntryView | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : { labels: entry.target.labels, requested: entry.rate };
  }

  /**
   * Targets a reload removed, newest last, each with `unwatchedSince`: the page marks them as no
   * longer watched and reads what was recorded of them. A target added back leaves this list.
   */
  unwatched(): TargetSummary[] {
    return [...this.removed.values()];
  }

  /**
   * Makes the set what `targets` says; resolves once removed monitors have stopped. Targets in
   * `sampledElsewhere` (another replica owns them, --store) leave without being listed as no
   * longer watched: they still are, by another process.
   */
  async apply(
    targets: readonly FleetTarget[],
    sampledElsewhere: ReadonlySet<string> = new Set(),
  ): Promise<{ added: string[]; removed: string[]; kept: string[] }> {
    const wanted = new Map(targets.map((t) => [t.definition.id, t]));
    const added: string[] = [];
    const removed: string[] = [];
    const kept: string[] = [];
    const stopping: Promise<void>[] = [];
    for (const [id, entry] of this.entries) {
      const next = wanted.get(id);
      if (next !== undefined && sameTarget(entry, next, next.rate ?? this.options.defaultRate)) {
        entry.target = next;
        kept.push(id);
        continue;
      }
      stopping.push(this.remove(entry));
      removed.push(id);
      // Changed ones are added back below and leave the list again.
      this.removed.delete(id);
      if (!sampledElsewhere.has(id)) this.removed.set(id, { ...entry.monitor.summary(), unwatchedSince: Date.now() });
      for (const oldest of this.removed.keys()) {
        if (this.removed.size <= MAX_UNWATCHED) break;
        this.removed.delete(oldest);
      }
    }
    await Promise.all(stopping);
    for (const target of targets) {
      if (this.entries.has(target.definition.id)) continue;
      this.add(target);
      added.push(target.definition.id);
    }
    return { added, removed, kept };
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.remove(entry)));
  }

  private add(target: FleetTarget): void {
    const rate = target.rate ?? this.options.defaultRate;
    const monitor = this.options.create(target, rate === 'auto' ? RateGovernor.START_HZ : rate);
    const governor =
      rate === 'auto'
        ? new RateGovernor(monitor, this.options.budgetShare, (from, to) =>
            this.options.log(`${target.definition.name}: --rate auto ${from} → ${to} Hz`),
          )
        : null;
    const phase = leastTakenPhase([...this.entries.values()].map((entry) => entry.phase));
    this.entries.set(target.definition.id, { target, rate, monitor, governor, phase });
    this.removed.delete(target.definition.id);
    this.monitors.set(monitor.id, monitor);
    monitor.start(phase);
    this.emit({ kind: 'added', monitor });
  }

  private async remove(entry: Entry): Promise<void> {
    const { id } = entry.monitor;
    if (this.entries.get(id) === entry) this.entries.delete(id);
    if (this.monitors.get(id) === entry.monitor) this.monitors.delete(id);
    entry.governor?.stop();
    this.emit({ kind: 'removed', monitor: entry.monitor });
    await entry.monitor.stop();
  }

  private emit(change: MonitorChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.options.log(`a consumer of target changes failed: ${String(error)}`);
      }
    }
  }
}

/**
 * Places on the interval monitors are spread over. Each place is a wake-up of the event loop
 * for its monitors together; measured with 20 targets at 20 Hz (npm run bench fleet, 10 s
 * windows, 2 runs each): all at once, 0.50–0.69 % of a core per target and jitter p95 5.2–6.0 ms
 * (one target: 1.4–1.6 ms); every monitor at a place of its own, 0.88–0.99 % and 1.8–1.9 ms;
 * 4 places, 0.70–0.76 % and 2.5–3.3 ms: most of the jitter gone for a third of the cost.
 */
const PHASE_PLACES = 4;

/**
 * The phase for the next monitor: the place on the interval that the fewest running monitors
 * share (the earliest on a tie). Twenty targets at 20 Hz started together fired twenty queries in
 * the same millisecond, 20 times a second, and each waited behind the others. Counting the
 * running monitors, not those ever started, keeps the places even after removals and reloads.
 */
export function leastTakenPhase(taken: readonly number[]): number {
  const counts = Array.from({ length: PHASE_PLACES }, (_, place) => ({ place, monitors: 0 }));
  for (const phase of taken) {
    const slot = counts[Math.round(phase * PHASE_PLACES) % PHASE_PLACES];
    if (slot !== undefined) slot.monitors++;
  }
  const least = counts.reduce((best, slot) => (slot.monitors < best.monitors ? slot : best));
  return least.place / PHASE_PLACES;
}
