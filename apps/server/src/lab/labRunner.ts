import { setTimeout as sleep } from 'node:timers/promises';
import {
  LAB_CONTROL_TIMEOUT_MS,
  LAB_TABLE_EXISTS_SQL,
  describeDirectIoFailure,
  labScanTimeoutMs,
  labTableName,
  summarizeLab,
  type PlannedRun,
} from '@aioscope/core';
import type { LabExperiment } from '@aioscope/spec';
import type { EmbeddedPostgresServer } from '../postgres/embeddedPostgres.ts';
import { describeDatabaseError } from '../postgres/sessions.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { measureRun, type ScanObserver } from './labMeasurement.ts';
import { LabSessions } from './labSessions.ts';
import { assertIoUringBuild, buildLabTable, dropLabTable } from './labTable.ts';

/** PostgreSQL's developer setting for direct I/O, and its value that opens data files with O_DIRECT. */
const DIRECT_IO_SETTING = 'debug_io_direct';
const DIRECT_IO_DATA = 'data';

/** How often a cancel is repeated until the experiment has ended. */
const CANCEL_RETRY_MS = 500;

export interface LabRunnerOptions {
  target: TargetDefinition;
  /** The embedded server when it is the target: the only server the lab ever restarts. */
  embedded: EmbeddedPostgresServer | null;
  /** Called after every change worth keeping: each finished run, and the end. */
  save: (experiment: LabExperiment) => Promise<void>;
  /** Quiet the demo workload while the experiment runs, and let it go on afterwards. */
  pauseDemo?: () => Promise<void>;
  resumeDemo?: () => void;
  log?: (message: string) => void;
  /** Told around each run's scan (a race captures it). */
  observer?: ScanObserver;
}

/**
 * Runs one experiment: builds the lab table, runs the plan (restarting the embedded server where a
 * variant's io_method / io_workers or the experiment's direct I/O ask for it), and puts everything back afterwards. It can be
 * cancelled at any point: cancel() stops the statement any of its sessions runs (pg_cancel_backend
 * from a session of its own), and the experiment ends as cancelled with the reason given.
 *
 * `ended` resolves when the experiment has its final status and is saved; `settled` when the
 * embedded server's own settings are back, anything created on a user's server is dropped and
 * the sessions are closed.
 */
export class LabRunner {
  readonly ended: Promise<void>;
  readonly settled: Promise<void>;
  private readonly abort = new AbortController();
  private readonly sessions: LabSessions;
  /** The embedded server's settings before the experiment, to restore afterwards. */
  private readonly baseSettings: Readonly<Record<string, string>>;
  private restoring = false;
  /** The lab table, when this experiment created it: on a user's server it is dropped afterwards. */
  private createdTable: string | null = null;

  constructor(
    private readonly options: LabRunnerOptions,
    readonly experiment: LabExperiment,
    private readonly plan: readonly PlannedRun[],
  ) {
    this.sessions = new LabSessions(options.target.clientConfig);
    // Direct I/O is named off ('') in the base settings: restoring them then takes it away again
    // (a restart merges settings into the ones the server runs with, it never drops one).
    this.baseSettings =
      options.embedded === null
        ? {}
        : {
            ...(experiment.definition.directIo === true ? { [DIRECT_IO_SETTING]: '' } : {}),
            ...options.embedded.currentSettings,
          };
    let markEnded: () => void = () => undefined;
    this.ended = new Promise((resolve) => (markEnded = resolve));
    this.settled = this.execute(markEnded);
  }

  /** Settings of the embedded server that differ from its own now (the experiment restarted it). */
  get changedServerSettings(): Record<string, string> {
    const embedded = this.options.embedded;
    if (embedded === null) return {};
    return Object.fromEntries(
      Object.entries(embedded.currentSettings).filter(([name, value]) => this.baseSettings[name] !== value),
    );
  }

  get isRestoring(): boolean {
    return this.restoring;
  }

  /**
   * Ends the experiment as cancelled: stops the statement running now and resolves once the
   * experiment is saved with its final status (not waiting for the settings to be restored).
   */
  async cancel(reason: string): Promise<void> {
    if (!this.abort.signal.aborted) {
      this.abort.abort(reason);
      void this.cancelUntilEnded();
    }
    await this.ended;
  }

  /**
   * Every step checks the abort signal before it starts, but a statement sent just before the
   * signal and reached by pg_cancel_backend just before it began would run on: cancelling again
   * until the experiment has ended closes that gap, and rides out an embedded restart in progress.
   */
  private async cancelUntilEnded(): Promise<void> {
    let ended = false;
    void this.ended.then(() => (ended = true));
    let reported = false;
    while (!ended) {
      try {
        await this.sessions.cancelAll();
      } catch (error) {
        if (!reported)
          this.options.log?.(`lab: could not cancel the running statement yet: ${describeDatabaseError(error)}`);
        reported = true;
      }
      await Promise.race([this.ended, sleep(CANCEL_RETRY_MS)]);
    }
  }

  private async execute(markEnded: () => void): Promise<void> {
    const { experiment } = this;
    try {
      await this.options.pauseDemo?.();
      await this.runPlan();
      experiment.status = 'done';
    } catch (error) {
      if (this.abort.signal.aborted) {
        experiment.status = 'cancelled';
        experiment.cancelReason = String(this.abort.signal.reason);
      } else {
        experiment.status = 'failed';
        experiment.error = describeDatabaseError(error);
        // A filesystem without O_DIRECT fails the restart or the first read: say so, not just EINVAL.
        const embedded = this.options.embedded;
        if (embedded !== null && embedded.currentSettings[DIRECT_IO_SETTING] === DIRECT_IO_DATA) {
          experiment.error = describeDirectIoFailure(experiment.error, embedded.dataDir);
        }
      }
    }
    await this.sessions.closeAll();
    experiment.finishedAt = Date.now();
    await this.options.save(experiment).catch((error: unknown) => {
      this.options.log?.(`lab: could not save experiment ${experiment.id}: ${String(error)}`);
    });
    markEnded();
    this.restoring = true;
    try {
      await this.restore();
    } finally {
      this.restoring = false;
      this.options.resumeDemo?.();
    }
  }

  private async runPlan(): Promise<void> {
    const { experiment } = this;
    const { definition } = experiment;
    const { embedded } = this.options;
    const signal = this.abort.signal;
    const tableMb = definition.tableMb;
    const tableName = labTableName(tableMb);
    let control = await this.sessions.openSession(LAB_CONTROL_TIMEOUT_MS);
    if (embedded !== null && definition.variants.some((variant) => variant.server.io_method === 'io_uring')) {
      await assertIoUringBuild(control);
    }
    const existed = (await control.client.query<{ found: boolean }>(LAB_TABLE_EXISTS_SQL, [tableName])).rows[0]?.found;
    // Marked before building: a build cancelled halfway still leaves the schema to drop.
    if (existed !== true) this.createdTable = tableName;
    const table = await buildLabTable(this.sessions, {
      tableName,
      tableMb,
      embedded,
      warmUp: definition.cacheState !== 'cold' || embedded === null,
      signal,
    });

    for (const planned of this.plan) {
      signal.throwIfAborted();
      const wanted = {
        ...this.baseSettings,
        ...stringify(planned.variant.server),
        ...(definition.directIo === true ? { [DIRECT_IO_SETTING]: DIRECT_IO_DATA } : {}),
      };
      if (
        embedded !== null &&
        Object.entries(wanted).some(([name, value]) => embedded.currentSettings[name] !== value)
      ) {
        await this.sessions.close(control);
        this.options.log?.(`lab: restarting the embedded server for ${planned.variant.name}`);
        await embedded.restart(wanted);
        signal.throwIfAborted();
        control = await this.sessions.openSession(LAB_CONTROL_TIMEOUT_MS);
      }
      const run = await this.sessions.openSession(labScanTimeoutMs(tableMb));
      try {
        signal.throwIfAborted();
        const measured = await measureRun(
          {
            control: control.client,
            run: run.client,
            table,
            cacheState: definition.cacheState,
            osEviction: embedded !== null,
            signal,
            ...(this.options.observer === undefined ? {} : { observer: this.options.observer }),
          },
          planned,
          experiment.id,
        );
        experiment.runs.push(measured);
        experiment.summary = summarizeLab(definition, experiment.runs);
      } finally {
        await this.sessions.close(run);
      }
      await this.options.save(experiment);
    }
    // A cancel that came in during the last run's bookkeeping still ends the experiment as cancelled.
    signal.throwIfAborted();
  }

  /** Puts the embedded server's settings back and, on a user's server, drops what the lab created. */
  private async restore(): Promise<void> {
    const { embedded, log } = this.options;
    const { createdTable } = this;
    if (embedded !== null && Object.keys(this.changedServerSettings).length > 0) {
      try {
        await embedded.restart({ ...this.baseSettings });
      } catch (error) {
        log?.(`lab: could not restore the embedded server's settings: ${String(error)}`);
      }
    }
    if (embedded === null && createdTable !== null)
      await dropLabTable(this.options.target.clientConfig, createdTable, log);
  }
}

function stringify(settings: Record<string, string | number | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
  );
}
