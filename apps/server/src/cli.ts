import { HELP_TEXT, parseConfig } from './config/config.ts';
import { StartupError, startAioscope, type RunningAioscope } from './server.ts';

const log = {
  info: (message: string): void => console.log(`aioscope: ${message}`),
  warn: (message: string): void => console.warn(`aioscope: ${message}`),
};

/** The process: configuration, start, signals, exit codes. Everything else lives in server.ts/app.ts. */
async function main(): Promise<number> {
  if (process.argv[2] === 'lab') {
    const { runLabCommand } = await import('./lab/labCommand.ts');
    return runLabCommand(process.argv.slice(3));
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

  let running: RunningAioscope;
  try {
    running = await startAioscope(result.config, log);
  } catch (error) {
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

  return new Promise<number>((resolve) => {
    let closing = false;
    const shutdown = (signal: string): void => {
      if (closing) return;
      closing = true;
      log.info(`${signal}: shutting down ...`);
      running.close().then(
        () => resolve(0),
        (error: unknown) => {
          console.error(`aioscope: shutdown failed: ${String(error)}`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    running.embedded?.onUnexpectedExit((code) => {
      if (closing || running.isClosing()) return;
      console.error(`aioscope: the embedded PostgreSQL server stopped unexpectedly (code ${String(code)}); exiting`);
      closing = true;
      void running.close().finally(() => resolve(1));
    });
  });
}

process.exitCode = await main();
// Lingering sockets or timers must not keep a finished process alive.
setTimeout(() => process.exit(process.exitCode), 200).unref();
