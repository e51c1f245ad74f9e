import closeWithGrace from 'close-with-grace';
import { StartupError, startAioscope, type RunningAioscope } from '../app/server.ts';
import { HELP_TEXT, parseConfig } from '../config/config.ts';
import { SHUTDOWN_GRACE_MS, consoleLog as log } from './console.ts';

/**
 * `aioscope [options]`: configuration, start, and one graceful shutdown for signals and fatal
 * errors. Returns the exit code, or null once the server runs (it then ends through close-with-grace).
 */
export async function runStartCommand(argv: readonly string[]): Promise<number | null> {
  const result = parseConfig(argv, process.env);
  if (result.ok === 'help') {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (result.ok === false) {
    console.error(`aioscope: ${result.error} (see --help)`);
    return 2;
  }

  let running: RunningAioscope | null = null;
  // Signals and fatal errors during start-up and after end the same way: everything started is closed.
  const graceful = closeWithGrace(
    {
      delay: SHUTDOWN_GRACE_MS,
      logger: { error: (message: unknown) => console.error(`aioscope: ${String(message)}`) },
      // With a targets file, SIGHUP re-reads it (as a daemon's configuration) instead of stopping.
      ...(result.config.target.kind === 'file' ? { skip: ['SIGHUP' as const] } : {}),
    },
    async ({ signal, err }) => {
      if (err !== undefined) console.error(`aioscope: fatal: ${err.stack ?? err.message}`);
      else log.info(`${signal ?? 'exit'}: shutting down ...`);
      await running?.close();
    },
  );

  try {
    running = await startAioscope(result.config, log, {
      onEmbeddedExit: (code) => {
        console.error(`aioscope: the embedded PostgreSQL server stopped unexpectedly (code ${String(code)}); exiting`);
        graceful.uninstall();
        void running?.close().finally(() => process.exit(1));
      },
    });
  } catch (error) {
    graceful.uninstall();
    if (error instanceof StartupError) {
      console.error(`aioscope: ${error.message}`);
      return error.exitCode;
    }
    console.error(`aioscope: failed to start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  log.info(
    `live AIO at ${running.url}  (Ctrl-C stops${running.embedded !== null ? ' it and the embedded server' : ''})`,
  );
  return null;
}
