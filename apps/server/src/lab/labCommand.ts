import path from 'node:path';
import { parseIntoClientConfig } from 'pg-connection-string';
import { labSummaryToMarkdown } from '@aioscope/core';
import { REPO_ROOT } from '../config/config.ts';
import { EmbeddedPostgresServer } from '../plugins/embeddedPostgres.ts';
import { closeSession, describeDatabaseError, openSession } from '../sampler/sessions.ts';
import { describeConnection } from '../server.ts';
import { findFreePort } from '../system/processes.ts';
import type { TargetDefinition } from '../targets/target.ts';
import { LAB_HELP, parseLabArgs } from './labArgs.ts';
import { LabService } from './labService.ts';

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
  const dataDir = path.resolve(args.dataDir ?? path.join(REPO_ROOT, '.aioscope'));
  let embedded: EmbeddedPostgresServer | null = null;
  let target: TargetDefinition;
  if (args.db === null) {
    console.log('aioscope lab: starting embedded PostgreSQL 18 ...');
    const port = await findFreePort();
    embedded = await EmbeddedPostgresServer.start({ rootDir: path.join(dataDir, 'pg18'), port });
    target = {
      id: 'embedded',
      name: 'embedded PostgreSQL 18',
      kind: 'embedded',
      clientConfig: embedded.connectionConfig,
    };
  } else {
    const clientConfig = parseIntoClientConfig(args.db);
    target = { id: 'server', name: describeConnection(clientConfig, process.env), kind: 'external', clientConfig };
    try {
      await closeSession(await openSession(clientConfig, { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 }));
    } catch (error) {
      console.error(`aioscope lab: cannot connect to ${target.name}: ${describeDatabaseError(error)}`);
      return 2;
    }
  }

  const lab = new LabService({
    target,
    embedded,
    resultsDir: path.join(dataDir, 'lab'),
    allowExternal: args.allowLab,
    log: (message) => console.log(`aioscope ${message}`),
  });
  const stop = (): void => void lab.cancel();
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
    const timer = setInterval(() => {
      void lab.get(started.id).then((experiment) => {
        for (const run of experiment?.runs.slice(printed) ?? []) {
          console.log(
            `  round ${run.round} ${run.variant}: ${run.executionMs.toFixed(1)} ms, ${run.bytesPerRead === null ? '–' : `${(run.bytesPerRead / 1024).toFixed(1)} kB/read`}, io_method ${run.ioMethod ?? '?'}${run.osResidencyBefore === null ? '' : `, OS cache ${(run.osResidencyBefore * 100).toFixed(0)} % before`}`,
          );
          printed++;
        }
      });
    }, PROGRESS_INTERVAL_MS);
    await lab.settled();
    clearInterval(timer);
    const experiment = await lab.get(started.id);
    if (experiment === null) return 1;
    for (const run of experiment.runs.slice(printed)) {
      console.log(`  round ${run.round} ${run.variant}: ${run.executionMs.toFixed(1)} ms`);
    }
    if (experiment.status !== 'done') {
      console.error(`aioscope lab: experiment ${experiment.status}: ${experiment.error ?? ''}`);
      return 1;
    }
    const baseline = experiment.definition.variants[experiment.definition.baseline]?.name ?? 'baseline';
    const title = `${experiment.definition.cacheState} scans of ${experiment.definition.tableMb} MB, ${experiment.definition.rounds} rounds (${target.name})`;
    process.stdout.write(`\n${labSummaryToMarkdown(title, experiment.summary, experiment.notes, baseline)}`);
    console.log(`\nsaved: ${path.join(dataDir, 'lab', `${experiment.id}.json`)}`);
    return 0;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await embedded?.stop();
  }
}
