import { fork, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RecordingFileError } from './recordingFile.ts';
import type { IngestedRecording } from './recordingIngest.ts';
import type { IngestReply, IngestRequest, WorkerMessage } from './recordingIngestWorker.ts';

/** Heap of the process that opens a file: it streams, so ~40 MB is what an hour at 100 Hz needs. */
export const INGEST_WORKER_HEAP_MB = 256;
/**
 * Its young generation: parsing makes short-lived objects by the million, and a larger nursery
 * collects them in fewer scavenges (an hour at 100 Hz in a worker with a 4 MB young generation took
 * ~0.7 s more CPU than with 32 MB); semi-spaces of 4 MB took no more CPU than 16 MB and 40 MB less
 * RSS.
 */
const INGEST_SEMI_SPACE_MB = 4;
/**
 * One libuv thread in the ingest process: DuckDB's loads then always run on the same thread, and
 * its peak RSS for an hour at 100 Hz was ~90 MB lower than with libuv's four (gunzip and the file
 * reads share that thread; the reader decompresses ahead so parsing goes on during a load).
 */
const INGEST_LIBUV_THREADS = '1';
/** A file within every limit opens in well under a minute; past this something is wrong. */
export const INGEST_TIMEOUT_MS = 5 * 60_000;
/**
 * How long the process is kept with no file to open. Idle after an hour at 100 Hz it still holds
 * ~140 MB RSS (DuckDB's and the allocator's, not the heap: collecting it gave back ~8 MB), so it
 * is not kept forever; a burst of files, or a person opening one after another, reuses it.
 */
export const INGEST_IDLE_MS = 5 * 60_000;
/** The end of the ingest process's stderr, where V8 says it ran out of heap. */
const STDERR_KEPT_CHARS = 4_096;

export interface IngestCost {
  /** The ingest process's peak RSS during this file (Linux: reset before each; elsewhere its lifetime's). */
  peakRssBytes: number;
  /** The CPU priority the ingest ran at (os.getPriority: 19 is the lowest). */
  priority: number;
  /** Its scheduling policy: 'idle' (SCHED_IDLE, started through chrt), 'normal'; null off Linux. */
  scheduler: string | null;
  /** The ingest process: the same one for every file until it ends. */
  pid: number;
}

/**
 * The ingest process's entry and the Node flags it needs: the bundled file beside dist/cli.js, or
 * in the repository (tests, `npm start`) the TypeScript source, loaded through tsx.
 */
function ingestEntry(bundledWorker: string | undefined): { entry: string; execArgv: string[] } {
  const heap = [
    `--max-old-space-size=${INGEST_WORKER_HEAP_MB}`,
    `--max-semi-space-size=${INGEST_SEMI_SPACE_MB}`,
    // Its heap collected after each file, so the idle process gives back what the file took.
    '--expose-gc',
  ];
  if (bundledWorker !== undefined) return { entry: bundledWorker, execArgv: heap };
  if (!import.meta.url.endsWith('.ts'))
    return { entry: fileURLToPath(new URL('./recordingIngestWorker.js', import.meta.url)), execArgv: heap };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    entry: fileURLToPath(new URL('./recordingIngestWorker.ts', import.meta.url)),
    execArgv: ['--import', tsx, ...heap],
  };
}

/** util-linux's chrt, which starts a command under SCHED_IDLE; null where there is none. */
const IDLE_SCHEDULER = ['/usr/bin/chrt', '/bin/chrt'].find((file) => existsSync(file)) ?? null;

interface Pending {
  request: IngestRequest;
  resolve: (done: { ingested: IngestedRecording; cost: IngestCost }) => void;
  reject: (error: unknown) => void;
}

interface Running {
  child: ChildProcess;
  /** Resolved by the process's first message, sent once it listens: a message before it would be lost. */
  ready: Promise<void>;
  stderr: string;
  ended: boolean;
}

/**
 * One process that opens recording files (recordingIngestWorker.ts), started at the first file and
 * kept for every later one: starting a process forks this one, whose main thread that blocked for
 * 3-104 ms per open (bench/README §11) while the sampler waited. Files go to it one at a time.
 * Neither it nor its channel keeps this process alive; it ends when this process does (its
 * channel closes), or after INGEST_IDLE_MS with no file.
 *
 * A file it refuses leaves it running. Should it end during a file (a crash, a kill, its heap), only
 * that file fails, with what happened; the next file starts a new one.
 */
export class RecordingIngestProcess {
  private running: Running | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private current: Pending | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly idleMs: number = INGEST_IDLE_MS,
    /** The bundled worker to run instead of this module's neighbour (the bench measures the shipped one). */
    private readonly bundledWorker?: string,
  ) {}

  /** The process's id while one runs (tests end it to check what a crash does). */
  get pid(): number | undefined {
    return this.running?.ended === false ? this.running.child.pid : undefined;
  }

  /** Checks one file into its database; files asked for meanwhile wait their turn. */
  ingest(request: IngestRequest): Promise<{ ingested: IngestedRecording; cost: IngestCost }> {
    const run = this.queue.then(() => this.run(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ends the process (a file in progress fails); a later file starts another. */
  stop(): void {
    this.clearIdle();
    const running = this.running;
    this.running = null;
    if (running !== null && !running.ended) running.child.kill('SIGKILL');
  }

  /** Starts the process now if none runs, so the first file does not wait for its start-up. */
  start(): void {
    this.ensureRunning();
    this.armIdle();
  }

  private async run(request: IngestRequest): Promise<{ ingested: IngestedRecording; cost: IngestCost }> {
    this.clearIdle();
    const running = this.ensureRunning();
    // While a file is in flight its answer must keep this process waiting for it.
    this.keepAlive(running, true);
    await running.ready;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.finish(new RecordingFileError(`not opened within ${INGEST_TIMEOUT_MS / 60_000} minutes`));
        this.stop();
      }, INGEST_TIMEOUT_MS);
      const done = (outcome: () => void): void => {
        clearTimeout(timer);
        outcome();
      };
      this.current = {
        request,
        resolve: (value) => done(() => resolve(value)),
        reject: (error) => done(() => reject(error)),
      };
      running.child.send({ kind: 'ingest', request } satisfies WorkerMessage);
    });
  }

  private finish(outcome: Error | IngestReply): void {
    const pending = this.current;
    this.current = null;
    if (this.running !== null) this.keepAlive(this.running, false);
    this.armIdle();
    if (pending === null) return;
    if (outcome instanceof Error) pending.reject(outcome);
    else if (outcome.ok) {
      const { ingested, peakRssBytes, priority, scheduler, pid } = outcome;
      pending.resolve({ ingested, cost: { peakRssBytes, priority, scheduler, pid } });
    } else if (outcome.refused) pending.reject(new RecordingFileError(outcome.message));
    else pending.reject(new Error(`could not open the recording: ${outcome.message}`));
  }

  private armIdle(): void {
    this.clearIdle();
    if (this.running === null) return;
    this.idleTimer = setTimeout(() => {
      if (this.current === null) this.stop();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private ensureRunning(): Running {
    if (this.running !== null && !this.running.ended) return this.running;
    const { entry, execArgv } = ingestEntry(this.bundledWorker);
    const options = {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'] satisfies StdioOptions,
      env: { ...process.env, UV_THREADPOOL_SIZE: INGEST_LIBUV_THREADS },
      serialization: 'advanced' as const,
    };
    // SCHED_IDLE where chrt can set it (Linux): the child then runs only on a core nothing else
    // wants, which nice 19 alone does not give (a nice-19 process still takes a share of a busy
    // core and doubled the sampler's jitter). Its threads inherit it; nice 19 stays underneath.
    const child =
      IDLE_SCHEDULER === null
        ? fork(entry, [], { ...options, execArgv })
        : spawn(IDLE_SCHEDULER, ['--idle', '0', process.execPath, ...execArgv, entry], options);
    let markReady: () => void = () => undefined;
    let markFailed: (error: unknown) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined); // awaited by the file that started it; a failure before then is its
    const running: Running = { child, ready, stderr: '', ended: false };
    this.running = running;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => (running.stderr = (running.stderr + text).slice(-STDERR_KEPT_CHARS)));
    child.on('message', (message: WorkerMessage) => {
      if (message.kind === 'ready') markReady();
      else if (message.kind === 'reply' && this.running === running) this.finish(message.reply);
    });
    const ended = (error: Error): void => {
      if (running.ended) return;
      running.ended = true;
      markFailed(error);
      if (this.running === running) {
        this.running = null;
        this.finish(error);
      }
    };
    child.once('error', (error) =>
      ended(new Error(`could not start the process that opens recordings: ${error.message}`)),
    );
    child.once('exit', (code, signal) => {
      ended(
        /heap out of memory/i.test(running.stderr)
          ? new RecordingFileError(`needs more than the ${INGEST_WORKER_HEAP_MB} MB an opening file may use`)
          : new Error(
              `the process opening the recording ended (${signal ?? `exit code ${code}`}) before it finished: ` +
                'the file was not opened; opening it again starts a new one',
            ),
      );
    });
    // Idle, neither the process nor its pipes keep this one alive; its end closes the channel,
    // which ends the child.
    this.keepAlive(running, false);
    return running;
  }

  private keepAlive(running: Running, wanted: boolean): void {
    if (running.ended) return;
    // stderr is a pipe (a net.Socket), which Readable's type does not say.
    const stderr = running.child.stderr as (NodeJS.ReadableStream & { ref(): void; unref(): void }) | null;
    for (const handle of [running.child, running.child.channel, stderr]) {
      if (handle === null || handle === undefined) continue;
      if (wanted) handle.ref();
      else handle.unref();
    }
  }
}

/** The one ingest process of this aioscope, shared by every catalog of opened recordings. */
let shared: RecordingIngestProcess | null = null;
export function sharedIngestProcess(): RecordingIngestProcess {
  shared ??= new RecordingIngestProcess();
  return shared;
}
