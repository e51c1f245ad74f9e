import {
  LAB_START_RATE,
  admitStart,
  checkLabPermission,
  labUnavailableReason,
  type LabRefusal,
  type LabTargetFacts,
  type StartRateLimit,
} from '@aioscope/core';
import type { LabExperimentDefinition } from '@aioscope/spec';

/**
 * Who may run what, for one target: the core rules plus the one piece of state they need, the
 * times of recent starts. One experiment at a time is the service's to say (it knows what runs).
 */
export class LabPolicy {
  private starts: number[] = [];

  constructor(
    readonly facts: LabTargetFacts,
    private readonly limit: StartRateLimit = LAB_START_RATE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why the lab is off here, or null. */
  get unavailableReason(): string | null {
    return labUnavailableReason(this.facts);
  }

  /** Whether this experiment may run here at all. */
  permit(definition: LabExperimentDefinition): LabRefusal | null {
    return checkLabPermission(this.facts, definition);
  }

  /** Counts a start against the rate limit, or refuses it (a refused start is not counted). */
  admitStart(): LabRefusal | null {
    const admission = admitStart(this.starts, this.now(), this.limit);
    this.starts = admission.starts;
    return admission.admitted ? null : { status: 429, error: admission.error };
  }
}
