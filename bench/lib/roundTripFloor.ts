import { fileURLToPath } from 'node:url';
import { FAST_TICK_SQL } from '@aioscope/core';
import { runCli } from '../../apps/server/test/support/cliProcess.ts';
import { stopCliChild, type CliChild } from './cliChild.ts';
import { sleep, type Cleanups } from './common.ts';

/** What node runs for the floor: plain JavaScript, so no loader's cost is counted. */
export const FLOOR_ENTRY = [fileURLToPath(new URL('./roundTripFloor.mjs', import.meta.url))] as const;

/**
 * The round-trip floor (roundTripFloor.mjs) as a child process: one node-postgres session per URL
 * running the prepared fast tick at 20 Hz and dropping the answers; stopped by the cleanups if the
 * measurement does not. `env` reaches the child (PGPASSFILE for URLs without their password).
 */
export async function startRoundTripFloor(
  name: string,
  urls: readonly string[],
  cleanups: Cleanups,
  options: { node?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliChild> {
  const env = { ...options.env, FLOOR_DB_URL: urls.join(' '), FLOOR_SQL: FAST_TICK_SQL };
  const run = runCli([], env, [], options.node, FLOOR_ENTRY);
  cleanups.add(name, () => stopCliChild(run));
  const deadline = Date.now() + 60_000;
  while (!run.stdout().includes('floor ready')) {
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${name}: the floor did not start:\n${run.stderr()}`);
    }
    await sleep(100);
  }
  const pid = run.child.pid;
  if (pid === undefined) throw new Error(`${name}: the floor has no pid`);
  return { run, pid, url: '' };
}
