import {
  READ_COMBINING_RACE,
  RACE_CAPTURE_HZ,
  RACE_MAX_EXPIRED_IDS,
  RACE_MAX_KEPT,
  RACE_PRESETS,
  raceStartSchema,
  type Race,
} from '@aioscope/spec';
import type { ObservedScan, ScanObserver } from '../lab/labMeasurement.ts';
import type { LabService, StartResult } from '../lab/labService.ts';
import { captureKey, chooseLanes, type StoredCapture } from './raceLanes.ts';
import { RunCapture } from './runCapture.ts';

/** A race is a lab experiment (same id) plus the captures of its runs. */
interface RaceRecord {
  captures: Map<string, StoredCapture>;
  /** Captures running now, by run. */
  running: Map<string, RunCapture>;
}

/**
 * Races: starts lab experiments with an observer that captures each run's scan at 100 Hz, and
 * joins the lab's figures with the captures. Who may run a race, and one at a time, are the lab's
 * rules: a race is refused exactly when the experiment would be. Captures live in memory (the
 * newest RACE_MAX_KEPT races): they are for watching now and exporting, the lab keeps the figures.
 * The ids of forgotten races are remembered (bounded), so a race's link says it expired.
 */
export class RaceService {
  private readonly races = new Map<string, RaceRecord>();
  /** Forgotten races, oldest first (a Set iterates in insertion order). */
  private readonly expired = new Set<string>();

  constructor(
    private readonly lab: LabService,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  start(body: unknown): StartResult {
    const parsed = raceStartSchema.safeParse(body);
    // A body that names a preset asks for one: the lab would judge it as an experiment and say
    // something about table sizes.
    const preset: unknown = typeof body === 'object' && body !== null && 'preset' in body ? body.preset : undefined;
    if (preset !== undefined && !(RACE_PRESETS as readonly unknown[]).includes(preset))
      return { ok: false, status: 400, error: `preset must be one of: ${RACE_PRESETS.join(', ')}` };
    // Anything else that is not a preset goes to the lab as it came, for the lab's own error sentence.
    const input =
      parsed.success && 'preset' in parsed.data
        ? {
            ...READ_COMBINING_RACE,
            ...(parsed.data.confirmTarget === undefined ? {} : { confirmTarget: parsed.data.confirmTarget }),
          }
        : body;
    const observer = this.observer();
    const started = this.lab.start(input, observer);
    if (started.ok) this.remember(started.id);
    return started;
  }

  /** The race, or null when no experiment has this id. An experiment never raced has no lanes. */
  async get(id: string): Promise<Race | null> {
    const experiment = await this.lab.get(id);
    if (experiment === null) return null;
    const record = this.races.get(id);
    return {
      id,
      captureHz: RACE_CAPTURE_HZ,
      experiment,
      lanes: record === undefined ? [] : chooseLanes(experiment, record.captures),
      captures: record !== undefined ? 'kept' : this.expired.has(id) ? 'expired' : 'none',
    };
  }

  /** Every capture of a race (all rounds), for the export. */
  captures(id: string): StoredCapture[] {
    return [...(this.races.get(id)?.captures.values() ?? [])];
  }

  private remember(id: string): RaceRecord {
    let record = this.races.get(id);
    if (record === undefined) {
      record = { captures: new Map(), running: new Map() };
      this.races.set(id, record);
      this.expired.delete(id);
      // Maps iterate in insertion order: the first key is the oldest race.
      while (this.races.size > RACE_MAX_KEPT) {
        const oldest = this.races.keys().next().value;
        if (oldest === undefined) break;
        this.races.delete(oldest);
        this.expired.add(oldest);
      }
      while (this.expired.size > RACE_MAX_EXPIRED_IDS) {
        const oldest = this.expired.values().next().value;
        if (oldest === undefined) break;
        this.expired.delete(oldest);
      }
    }
    return record;
  }

  private observer(): ScanObserver {
    const config = this.lab.target.clientConfig;
    return {
      scanStarting: async (scan: ObservedScan) => {
        const record = this.remember(scan.experimentId);
        const key = captureKey(scan.variant, scan.round);
        try {
          record.running.set(key, await RunCapture.start(config, scan));
        } catch (error) {
          // The run goes on without its capture; the lane says why it has no frames.
          record.captures.set(key, {
            variant: scan.variant,
            round: scan.round,
            pid: scan.pid,
            frames: [],
            startT: 0,
            endT: 0,
            error: `could not start capturing: ${error instanceof Error ? error.message : String(error)}`,
          });
          this.log(`race: capture of ${key} did not start: ${String(error)}`);
        }
      },
      scanEnded: async (scan: ObservedScan) => {
        const record = this.remember(scan.experimentId);
        const key = captureKey(scan.variant, scan.round);
        const capture = record.running.get(key);
        if (capture === undefined) return;
        record.running.delete(key);
        const captured = await capture.stop();
        record.captures.set(key, { ...captured, variant: scan.variant, round: scan.round, pid: scan.pid });
      },
    };
  }
}
