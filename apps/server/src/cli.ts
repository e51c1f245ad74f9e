import closeWithGrace from 'close-with-grace';
import { HELP_TEXT, parseConfig } from './config/config.ts';
import { StartupError, startAioscope, type RunningAioscope } from './server.ts';

const log = {
  info: (message: string): void => console.log(`aioscope: ${message}`),
  warn: (message: string): void => console.warn(`aioscope: ${message}`),
};

/** How long a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 15_000;

/** The process: configuration, start, signals, exit codes. Everything else lives in server.ts/app.ts. */
async function main(): Promise<number | null> {
  if (process.argv[2] === 'lab') {
    const { runLabCommand } = await import('./lab/labCommand.ts');
    return runLabCommand(process.argv.slice(3));
  }
  if (process.argv[2] === 'open') return openCommand(process.argv.slice(3));
  if (process.argv[2] === 'check') {
    const { runCheckCommand } = await import('./check/checkCommand.ts');
    return runCheckCommand(process.argv.slice(3));
  }
  const result = parseConfig(process.argv.slice(2), process.env);
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
  // From here the process ends through close-with-grace (a signal or a fatal error).
  return null;
}

/** `open FILE`: a recording served with no database; exit 2 for a bad file or bad flags. */
async function openCommand(argv: string[]): Promise<number | null> {
  const { OPEN_HELP_TEXT, openRecordingFile, parseOpenArgs } = await import('./history/recordingFileOpen.ts');
  const { RecordingFileError } = await import('./history/recordingFile.ts');
  const options = parseOpenArgs(argv, process.env);
  if (options === 'help') {
    process.stdout.write(OPEN_HELP_TEXT);
    return 0;
  }
  if (typeof options === 'string') {
    console.error(`aioscope open: ${options} (see open --help)`);
    return 2;
  }
  try {
    const opened = await openRecordingFile(options);
    closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
      if (err !== undefined) console.error(`aioscope: fatal: ${err.stack ?? err.message}`);
      else log.info(`${signal ?? 'exit'}: shutting down ...`);
      await opened.close();
    });
    log.info(`recording ${options.file} at ${opened.url}  (Ctrl-C stops)`);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`aioscope open: ${options.file}: ${message}`);
    return error instanceof RecordingFileError ? 2 : 1;
  }
}

const code = await main();
if (code !== null) {
  process.exitCode = code;
  // Lingering sockets or timers must not keep a finished process alive.
  setTimeout(() => process.exit(code), 200).unref();
}
