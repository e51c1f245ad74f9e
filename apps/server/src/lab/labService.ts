import { randomBytes } from 'node:crypto';
import { describeLabInputIssue, labNotes, planRuns } from '@aioscope/core';
import { labExperimentSchema, type LabExperiment, type LabExperimentListItem, type LabInfo } from '@aioscope/spec';
import type { EmbeddedPostgresServer } from '../postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { ExperimentStore } from './experimentStore.ts';
import { LabPolicy } from './labPolicy.ts';
import type { ScanObserver } from './labMeasurement.ts';
import { LabRunner } from './labRunner.ts';

export type StartResult = { ok: true; id: string } | { ok: false; status: 400 | 403 | 409 | 429; error: string };

/** An experiment began or ended (any final status): history marks both on the time line. */
export type LabRunChange = { kind: 'started' | 'ended'; experiment: LabExperiment };

export type CancelResult = { ok: true; experiment: LabExperiment } | { ok: false; status: 404 | 409; error: string };

export interface LabServiceOptions {
  target: TargetDefinition;
  embedded: EmbeddedPostgresServer | null;
  /** Folder where experiments are saved as JSON. */
  resultsDir: string;
  /** A server other than the embedded one may run the lab only when the user said so (--allow-lab). */
  allowExternal: boolean;
  /** Quiet the demo workload while an experiment runs. */
  pauseDemo?: () => Promise<void>;
  resumeDemo?: () => void;
  log?: (message: string) => void;
}

/** What a shutdown says in the experiment it cut short. */
const SHUTDOWN_REASON = 'aioscope is shutting down';

/**
 * The scan lab of one target: the front door that asks the policy, keeps at most one runner, and
 * reads and writes experiments through the store. The cold-scan drill itself (interleaved rounds
 * of EXPLAIN ANALYZE per variant, restarts of the embedded server, the cache prepared per run)
 * is LabRunner's; the rules are core's.
 */
export class LabService {
  private readonly policy: LabPolicy;
  private readonly store: ExperimentStore;
  /** The experiment in progress, until its settings are restored and the lab is free again. */
  private runner: LabRunner | null = null;
  private readonly runListeners = new Set<(change: LabRunChange) => void>();

  constructor(private readonly options: LabServiceOptions) {
    this.policy = new LabPolicy({
      embedded: this.isEmbedded,
      allowExternal: options.allowExternal,
      targetName: options.target.name,
    });
    this.store = new ExperimentStore(options.resultsDir, options.log);
  }

  /** The lab's target: a race opens its capture sessions with the same connection settings. */
  get target(): TargetDefinition {
    return this.options.target;
  }

  get isEmbedded(): boolean {
    return this.options.embedded !== null && this.options.target.kind === 'embedded';
  }

  /** Tells a listener when an experiment starts and ends; returns the unsubscribe. */
  onRun(listener: (change: LabRunChange) => void): () => void {
    this.runListeners.add(listener);
    return () => void this.runListeners.delete(listener);
  }

  /** GET /api/lab: whether the lab is on here and what holds it now. */
  info(): LabInfo {
    const unavailable = this.policy.unavailableReason;
    const runner = this.runner;
    return {
      embedded: this.isEmbedded,
      target: { id: this.options.target.id, name: this.options.target.name },
      ...(unavailable === null ? {} : { unavailable }),
      active:
        runner === null
          ? null
          : { id: runner.experiment.id, serverSettings: runner.changedServerSettings, restoring: runner.isRestoring },
    };
  }

  /**
   * Validates and starts an experiment; the result is followed with get(id). An observer is told
   * around each run's scan (the race captures them).
   */
  start(input: unknown, observer?: ScanObserver): StartResult {
    const parsed = labExperimentSchema.safeParse(input);
    if (!parsed.success) {
      return { ok: false, status: 400, error: describeLabInputIssue(parsed.error.issues[0], input) };
    }
    const definition = parsed.data;
    const refusal = this.policy.permit(definition);
    if (refusal !== null) return { ok: false, ...refusal };
    if (this.runner !== null) {
      return {
        ok: false,
        status: 409,
        error: this.runner.isRestoring
          ? "the lab is putting the server's own settings back after the last experiment: try again in a moment"
          : `experiment ${this.runner.experiment.id} is running: cancel it or wait for it to end`,
      };
    }
    const limited = this.policy.admitStart();
    if (limited !== null) return { ok: false, ...limited };

    const now = Date.now();
    const id = randomBytes(9)
      .toString('base64url')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '0')
      .slice(0, 12);
    const plan = planRuns(definition);
    const experiment: LabExperiment = {
      id,
      targetId: this.options.target.id,
      targetName: this.options.target.name,
      createdAt: now,
      finishedAt: null,
      status: 'running',
      error: null,
      cancelReason: null,
      definition,
      plannedRuns: plan.length,
      runs: [],
      summary: [],
      notes: labNotes(definition, this.isEmbedded),
    };
    const runner = new LabRunner(
      {
        target: this.options.target,
        embedded: this.isEmbedded ? this.options.embedded : null,
        save: (saved) => this.store.save(saved),
        ...(this.options.pauseDemo === undefined ? {} : { pauseDemo: this.options.pauseDemo }),
        ...(this.options.resumeDemo === undefined ? {} : { resumeDemo: this.options.resumeDemo }),
        ...(this.options.log === undefined ? {} : { log: this.options.log }),
        ...(observer === undefined ? {} : { observer }),
      },
      experiment,
      plan,
    );
    this.runner = runner;
    this.notifyRun({ kind: 'started', experiment });
    void runner.settled.then(() => {
      if (this.runner === runner) this.runner = null;
      this.notifyRun({ kind: 'ended', experiment: runner.experiment });
    });
    return { ok: true, id };
  }

  /** Resolves when the experiment in progress (if any) has ended and the lab is free again. */
  async settled(): Promise<void> {
    await this.runner?.settled;
  }

  /**
   * Cancels one running experiment: its running statement is cancelled on the server, and this
   * resolves with the experiment once it is saved as cancelled (the embedded server's own settings
   * are put back afterwards, see info().active.restoring).
   */
  async cancelExperiment(id: string, reason: string): Promise<CancelResult> {
    const runner = this.runner;
    if (runner !== null && runner.experiment.id === id) {
      if (runner.experiment.status !== 'running') {
        return { ok: false, status: 409, error: `experiment ${id} is ${runner.experiment.status}, not running` };
      }
      await runner.cancel(reason);
      return { ok: true, experiment: runner.experiment };
    }
    const stored = await this.get(id);
    if (stored === null) return { ok: false, status: 404, error: `no experiment ${id}` };
    return { ok: false, status: 409, error: `experiment ${id} is ${stored.status}, not running` };
  }

  /** Shutdown (or Ctrl-C in the CLI): cancels whatever runs and waits until the lab has settled. */
  async cancel(reason: string = SHUTDOWN_REASON): Promise<void> {
    const runner = this.runner;
    if (runner === null) return;
    if (runner.experiment.status === 'running') await runner.cancel(reason);
    await runner.settled;
  }

  async get(id: string): Promise<LabExperiment | null> {
    const current = this.runner?.experiment;
    if (current?.id === id) return current;
    const stored = await this.store.load(id);
    return stored === null ? null : this.interrupted(stored);
  }

  async list(): Promise<LabExperimentListItem[]> {
    const current = this.runner?.experiment;
    const experiments = (await this.store.loadAll()).filter((experiment) => experiment.id !== current?.id);
    if (current !== undefined) experiments.push(current);
    return experiments
      .map((experiment) => this.interrupted(experiment))
      .map((experiment) => ({
        id: experiment.id,
        createdAt: experiment.createdAt,
        status: experiment.status,
        cacheState: experiment.definition.cacheState,
        directIo: experiment.definition.directIo === true,
        variants: experiment.definition.variants.map((variant) => variant.name),
        rounds: experiment.definition.rounds,
      }))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  private notifyRun(change: LabRunChange): void {
    for (const listener of this.runListeners) {
      try {
        listener(change);
      } catch {
        // A listener (history) must not cost the lab its experiment.
      }
    }
  }

  /**
   * A stored experiment still marked running that this process is not running was cut short by a
   * crash or a kill: it is shown as failed, so nobody waits for it.
   */
  private interrupted(experiment: LabExperiment): LabExperiment {
    if (experiment.status !== 'running' || this.runner?.experiment.id === experiment.id) return experiment;
    return {
      ...experiment,
      status: 'failed',
      error: 'not running in this aioscope: it stopped before the experiment ended (or another aioscope runs it)',
    };
  }
}
