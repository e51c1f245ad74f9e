import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config/config.ts';

export const CLI_PATH = path.join(REPO_ROOT, 'apps/server/src/cli.ts');
/** What node runs by default: the sources through tsx (the tests need no build). */
const TSX_ENTRY = ['--import', 'tsx', CLI_PATH] as const;

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs the real command line, as `npm start -- ARGS` would, without npm in between. `nodeArgs`
 * go to node itself (the bench's `--cpu-prof`, which NODE_OPTIONS does not accept); `node` is the
 * binary (the bench's own-cost runs it on another Node version too); `entry` what node runs (the
 * bench runs `npm start`'s bundle: `['--enable-source-maps', '…/build/start/cli.js']`).
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
  node: string = process.execPath,
  entry: readonly string[] = TSX_ENTRY,
): CliRun {
  let stdout = '';
  let stderr = '';
  const child = spawn(node, [...nodeArgs, ...entry, ...args], {
    cwd: REPO_ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Stops a run that is still going (SIGTERM, its graceful shutdown) and waits for it to end. */
export async function stopCli(run: CliRun | undefined): Promise<void> {
  if (run === undefined || run.child.exitCode !== null) return;
  run.child.kill('SIGTERM');
  await run.exited;
}

/** The environment without PG* variables, so a developer's own settings never pick the target. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
}

/** Waits for the "live AIO at URL" line and returns the URL. */
export async function waitForUrl(run: CliRun, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /live AIO at (http:\/\/\S+)/.exec(run.stdout());
    if (match?.[1] !== undefined) return match[1];
    if (run.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`aioscope did not start:\n${run.stdout()}\n${run.stderr()}`);
}
