import { runStartCommand } from './commands/start.ts';
import { invocationDirectory } from './config/invocationDirectory.ts';

/**
 * The process: picks the command, runs it, sets the exit code. Each command lives in commands/;
 * those other than `start` are loaded only when asked for.
 */
async function main(): Promise<number | null> {
  const typedIn = invocationDirectory(process.env);
  // Relative paths in the flags are the user's, not npm's (which runs scripts from the package).
  if (typedIn !== null) process.chdir(typedIn);
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'lab') return (await import('./commands/lab.ts')).runLabCommand(rest);
  if (command === 'open') return (await import('./commands/open.ts')).runOpenCommand(rest);
  if (command === 'check') return (await import('./commands/check.ts')).runCheckCommand(rest);
  return runStartCommand(process.argv.slice(2));
}

// null: a server runs, and the process ends through close-with-grace (a signal or a fatal error).
const code = await main();
if (code !== null) {
  process.exitCode = code;
  // Lingering sockets or timers must not keep a finished process alive.
  setTimeout(() => process.exit(code), 200).unref();
}
