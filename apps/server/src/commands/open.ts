import { stat } from 'node:fs/promises';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import Fastify from 'fastify';
import { aioscopeApp, fastifyOptions } from '../app/app.ts';
import { OPEN_FLAGS } from '../config/commandFlags.ts';
import { helpText, parseFlags } from '../config/flagTable.ts';
import { MIN_TOKEN_LENGTH, isLoopbackHost } from '../http/access.ts';
import { WEB_ROOT } from '../app/webRoot.ts';
import { OpenedRecordings } from '../history/openedRecordings.ts';
import { DEFAULT_RECORDING_LIMITS, RecordingFileError, formatMegabytes } from '../history/recordingFile.ts';
import { SHUTDOWN_GRACE_MS, consoleLog as log } from './console.ts';

export const OPEN_HELP_TEXT = helpText(OPEN_FLAGS);

export interface OpenedServer {
  url: string;
  file: string;
  close(): Promise<void>;
}

interface OpenOptions {
  file: string;
  host: string;
  port: number;
  token: string | undefined;
  logLevel: string;
}

/** Flags → options, or the one line that says what is wrong. */
export function parseOpenArgs(argv: string[], env: NodeJS.ProcessEnv): OpenOptions | 'help' | string {
  const parsed = parseFlags(OPEN_FLAGS, argv);
  if (parsed.ok === 'help') return 'help';
  if (parsed.ok === false) return parsed.error;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] === undefined) return 'open takes one FILE';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return '--port must be a whole number from 0 to 65535';
  const token = values.token ?? env.AIOSCOPE_TOKEN;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    return `--token must be at least ${MIN_TOKEN_LENGTH} characters`;
  }
  if (token === undefined && !isLoopbackHost(values.host)) {
    return `--host ${values.host} is reachable from other machines: give --token (or AIOSCOPE_TOKEN)`;
  }
  return { file: positionals[0], host: values.host, port, token, logLevel: values['log-level'] };
}

/**
 * `open FILE`: reads the recording, then serves the dashboard and the history API for it. Only
 * the app plugin is registered (no target, monitors, lab or recorder plugins), so no database is
 * needed and the data folder is never touched.
 */
export async function openRecordingFile(options: OpenOptions): Promise<OpenedServer> {
  const size = await stat(options.file).catch(() => null);
  if (size === null || !size.isFile()) throw new RecordingFileError('no such file');
  if (size.size > DEFAULT_RECORDING_LIMITS.maxCompressedBytes) {
    throw new RecordingFileError(
      `too large: over the ${formatMegabytes(DEFAULT_RECORDING_LIMITS.maxCompressedBytes)} limit`,
    );
  }
  const recordings = new OpenedRecordings();
  const slot = recordings.reserve();
  if (slot === null) throw new Error('the recording catalog refused its first file');
  try {
    await recordings.open(slot, options.file, path.basename(options.file));
  } catch (error) {
    await recordings.closeAll();
    throw error;
  }

  const app = Fastify(fastifyOptions(options.logLevel));
  await app.register(aioscopeApp, {
    monitors: new Map(),
    recordings,
    webRoot: WEB_ROOT,
    ...(options.token === undefined ? {} : { token: options.token }),
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new Error(`port ${options.port} on ${options.host} is in use: pick another with --port`, { cause: error });
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const tokenQuery = options.token === undefined ? '' : `?token=${encodeURIComponent(options.token)}`;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}/${tokenQuery}`,
    file: options.file,
    close: () => (closed ??= app.close()),
  };
}

/** `open FILE`: a recording served with no database; exit 2 for a bad file or bad flags. */
export async function runOpenCommand(argv: string[]): Promise<number | null> {
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
