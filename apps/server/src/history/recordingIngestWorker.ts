import { readFileSync, readdirSync } from 'node:fs';
import { constants, getPriority, setPriority } from 'node:os';
import { RecordingFileError, type RecordingLimits } from './recordingFile.ts';
import { ingestRecording } from './recordingIngest.ts';

/**
 * The child process that opens one recording file (openedRecordings.ts starts it): parsing and
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
    }
  | { ok: false; refused: boolean; message: string };

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

async function ingest(request: IngestRequest): Promise<IngestReply> {
  try {
    const ingested = await ingestRecording(request.file, request.folder, request.limits);
    return {
      ok: true,
      ingested,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
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
// The request comes as the argument, not a message: one sent before a listener exists is lost.
const request = JSON.parse(process.argv[2] ?? 'null') as IngestRequest;
void ingest(request).then((reply) => process.send?.(reply, () => process.disconnect()));
