import path from 'node:path';
import { explainIoMarkdown, formatLabRunLine, labSummaryToMarkdown, plural } from '@aioscope/core';
import { DEFAULT_DATA_DIR } from '../config/config.ts';
import { StartupError, resolveTarget, type ResolvedTarget } from '../targets/resolveTarget.ts';
import { LAB_HELP, parseLabArgs } from './labArgs.ts';
import { LabService } from '../lab/labService.ts';

/** How often progress is printed while an experiment runs. */
const PROGRESS_INTERVAL_MS = 500;

/** `npm start -- lab …`: runs one experiment headless and prints its medians as Markdown. Returns the exit code. */
export async function runLabCommand(argv: readonly string[]): Promise<number> {
  const args = parseLabArgs(argv);
  if (args.ok === 'help') {
    process.stdout.write(LAB_HELP);
    return 0;
  }
  if (args.ok === false) {
    console.error(`aioscope lab: ${args.error} (see lab --help)`);
    return 2;
  }
  if (args.db !== null && !/^postgres(ql)?:\/\//.test(args.db)) {
    console.error('aioscope lab: --db must start with postgres:// or postgresql://');
    return 2;
  }
  const dataDir = path.resolve(args.dataDir ?? DEFAULT_DATA_DIR);
  // The same resolution as `start`: the embedded cluster, or a server connected to and checked once.
  let resolved: ResolvedTarget;
  try {
    resolved = await resolveTarget(
      args.db === null ? { kind: 'embedded' } : { kind: 'url', connectionString: args.db },
      {
        dataDir,
        waitForDb: false,
        log: {
          info: (message) => console.log(`aioscope lab: ${message}`),
          warn: (message) => console.warn(`aioscope lab: ${message}`),
        },
      },
    );
  } catch (error) {
    if (error instanceof StartupError) {
      console.error(`aioscope lab: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
  const { definition: target, embedded } = resolved;

  const lab = new LabService({
    target,
    embedded,
    resultsDir: path.join(dataDir, 'lab'),
    allowExternal: args.allowLab,
    log: (message) => console.log(`aioscope ${message}`),
  });
  const stop = (signal: NodeJS.Signals): void => void lab.cancel(`interrupted (${signal})`);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const started = lab.start({ ...args.input, ...(args.yes ? { confirmTarget: target.name } : {}) });
    if (!started.ok) {
      console.error(`aioscope lab: ${started.error}${args.db !== null && !args.yes ? ' (or pass --yes)' : ''}`);
      return 2;
    }
    console.log(`aioscope lab: experiment ${started.id} on ${target.name}`);
    let printed = 0;
    // Runs are printed from one place, by one formatter, whether they ended before or after the last tick.
    const printNewRuns = async (): Promise<void> => {
      for (const run of (await lab.get(started.id))?.runs.slice(printed) ?? []) {
        console.log(formatLabRunLine(run));
        printed++;
      }
    };
    let printing = Promise.resolve();
    const timer = setInterval(() => {
      printing = printing.then(printNewRuns);
    }, PROGRESS_INTERVAL_MS);
    await lab.settled();
    clearInterval(timer);
    await printing;
    await printNewRuns();
    const experiment = await lab.get(started.id);
    if (experiment === null) return 1;
    if (experiment.status !== 'done') {
      const why = experiment.status === 'cancelled' ? experiment.cancelReason : experiment.error;
      console.error(`aioscope lab: experiment ${experiment.status}: ${why ?? ''}`);
      return 1;
    }
    const { definition } = experiment;
    const baseline = definition.variants[definition.baseline]?.name ?? 'baseline';
    const title = `${definition.cacheState}${definition.directIo === true ? ', direct I/O' : ''} scans of ${definition.tableMb} MB, ${plural(definition.rounds, 'round')} (${target.name})`;
    process.stdout.write(
      `\n${labSummaryToMarkdown(title, experiment.summary, experiment.notes, baseline)}${explainIoMarkdown(experiment)}`,
    );
    console.log(`\nsaved: ${path.join(dataDir, 'lab', `${experiment.id}.json`)}`);
    return 0;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await embedded?.stop();
  }
}
