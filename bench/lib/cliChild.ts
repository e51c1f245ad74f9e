import path from 'node:path';
import { START_BUNDLE_DIR } from '../../apps/server/scripts/ensureStartBuilt.ts';
import { runCli, waitForUrl, type CliRun } from '../../apps/server/test/support/cliProcess.ts';
import type { Cleanups } from './common.ts';

/** What `npm start` runs (package.json): the bundle its prestart builds (ensureStartBuilt). */
export const START_ENTRY = ['--enable-source-maps', path.join(START_BUNDLE_DIR, 'cli.js')] as const;

export interface CliChild {
  run: CliRun;
  pid: number;
  /** The page's address, without the trailing slash. */
  url: string;
}

/**
 * The real command line (`npm start -- ARGS`) as a child process whose CPU and memory /proc
 * reports apart from the bench's own; stopped by the cleanups if the measurement does not.
 * `nodeArgs` go to node itself (`--cpu-prof`); `node` is the binary (this one's by default); `entry`
 * what it runs (the sources through tsx by default, see runCli).
 */
export async function startCliChild(
  name: string,
  args: string[],
  cleanups: Cleanups,
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; node?: string; entry?: readonly string[] } = {},
): Promise<CliChild> {
  const run = runCli(args, options.env ?? {}, options.nodeArgs ?? [], options.node, options.entry);
  cleanups.add(name, () => stopCliChild(run));
  const url = (await waitForUrl(run, 60_000)).replace(/\/$/, '');
  const pid = run.child.pid;
  if (pid === undefined) throw new Error(`${name}: no pid`);
  return { run, pid, url };
}

/** SIGTERM, and the graceful exit (a --cpu-prof profile is written then). */
export async function stopCliChild(run: CliRun): Promise<void> {
  if (run.child.exitCode !== null) return;
  run.child.kill('SIGTERM');
  await run.exited;
}
