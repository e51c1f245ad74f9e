import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { constants, getPriority, setPriority } from 'node:os';
import { RecordingFileError, type RecordingLimits } from './recordingFile.ts';
import { ingestRecording } from './recordingIngest.ts';

/**
 * The child process that opens recording files, one after another for as long as aioscope runs
 * (recordingIngestProcess.ts starts it and sends it each file): parsing and
 * checking an hour at 100 Hz is seconds of CPU. A process of its own, not a worker thread, because
 * a thread alone cannot yield all of it: DuckDB's loads, gunzip and the garbage collector's
 * helpers run on threads a worker shares with the whole process, at the sampler's priority (3.4 s
 * of CPU for an hour at 100 Hz, measured per thread). Here every thread runs at the lowest
 * priority, and a heap limit of its own means a file that needs more memory than expected ends
 * this process, not aioscope.
 */

export interface IngestRequest {
  file: string;
  folder: string;
  limits: RecordingLimits;
}

export type IngestReply =
  | {
      ok: true;
      ingested: Awaited<ReturnType<typeof ingestRecording>>;
      peakRssBytes: number;
      priority: number;
      scheduler: string | null;
      pid: number;
    }
  | { ok: false; refused: boolean; message: string };

/** Between aioscope and this process: it says it listens, then each file and its answer. */
export type WorkerMessage =
  { kind: 'ready' } | { kind: 'ingest'; request: IngestRequest } | { kind: 'reply'; reply: IngestReply };

/**
 * Every thread of this process at the lowest CPU priority. On Linux a priority belongs to a thread
 * (named by its id in /proc/self/task) and a new thread inherits its creator's, so lowering those
 * running now covers those started later; elsewhere the process's priority is changed.
 */
function lowerEveryThreadsPriority(): void {
  try {
    let threads: string[] = [];
    try {
      threads = readdirSync('/proc/self/task');
    } catch {
      setPriority(constants.priority.PRIORITY_LOW);
      return;
    }
    for (const thread of threads) setPriority(Number(thread), constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here (some containers): the file opens at normal priority.
  }
}

/** Linux's scheduling policies by number (sched.h), as /proc/<pid>/stat's field 41 gives them. */
const POLICIES: Record<number, string> = { 0: 'normal', 1: 'fifo', 2: 'round-robin', 3: 'batch', 5: 'idle' };

/** This process's scheduling policy ('idle' when started under SCHED_IDLE); null off Linux. */
function schedulingPolicy(): string | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const policy = Number(fields[41 - 3]);
    return POLICIES[policy] ?? String(policy);
  } catch {
    return null;
  }
}

/**
 * Linux keeps a process's peak RSS (VmHWM) until told to forget it: each file's peak is then its
 * own, not the largest file's since this process started. Elsewhere the lifetime's peak is given.
 */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux, or not allowed: the peak stays the lifetime's.
  }
}

function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1] !== undefined) return Number(match[1]) * 1024;
  } catch {
    // Not Linux: below.
  }
  return process.resourceUsage().maxRSS * 1024;
}

async function ingest(request: IngestRequest): Promise<IngestReply> {
  resetPeakRss();
  try {
    const ingested = await ingestRecording(request.file, request.folder, request.limits);
    return {
      ok: true,
      ingested,
      pid: process.pid,
      peakRssBytes: peakRssBytes(),
      priority: getPriority(),
      scheduler: schedulingPolicy(),
    };
  } catch (error) {
    return error instanceof RecordingFileError
      ? { ok: false, refused: true, message: error.message }
      : { ok: false, refused: false, message: error instanceof Error ? error.message : String(error) };
  }
}

lowerEveryThreadsPriority();
// aioscope gone (its end closes the channel): nothing is waiting for this file any more.
process.once('disconnect', () => process.exit(0));
// Files come one at a time (aioscope waits for each answer); one that fails leaves this process as it was.
process.on('message', (message: WorkerMessage) => {
  if (message.kind !== 'ingest') return;
  void ingest(message.request).then((reply) => {
    process.send?.({ kind: 'reply', reply } satisfies WorkerMessage);
    // Idle until the next file: what this one left in the heap goes back now, not at that file.
    setImmediate(() => globalThis.gc?.());
  });
});
// Said once the listener exists: a message sent before it would be lost.
process.send?.({ kind: 'ready' } satisfies WorkerMessage);
