import { spawn, type SpawnOptions } from 'node:child_process';

export interface FinishedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and keeps what it printed. */
export function runToEnd(command: string, args: readonly string[], options: SpawnOptions): Promise<FinishedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** npm as from a user's shell in `cwd`: no npm_* variables (nor INIT_CWD) from the npm running the tests. */
export function npmAsUser(args: readonly string[], cwd: string): Promise<FinishedRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_|^INIT_CWD$/i.test(name)));
  return runToEnd('npm', args, { cwd, env });
}
