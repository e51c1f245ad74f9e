import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { RecordingFileError, type RecordingLimits } from './recordingFile.ts';
import { ingestRecording } from './recordingIngest.ts';

/**
 * The worker thread that opens one recording file (recordingOpener.ts starts it): parsing and
 * checking an hour at 100 Hz is seconds of CPU, which on the main thread would delay every
 * sampler tick and request for as long, and a heap limit of its own means a file that needs more
 * memory than expected ends this thread, not aioscope.
 */

export interface IngestRequest {
  file: string;
  folder: string;
  limits: RecordingLimits;
}

export type IngestReply =
  | { ok: true; ingested: Awaited<ReturnType<typeof ingestRecording>> }
  | { ok: false; refused: boolean; message: string };

/**
 * This thread at the lowest CPU priority, so on a two-core machine the sampler and the server it
 * watches get the CPU first. On Linux a priority belongs to a thread, named by its id in
 * /proc/thread-self; elsewhere nothing is changed (a process-wide change would slow the sampler too).
 */
function lowerThisThreadsPriority(): void {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(thread) && thread > 0) setPriority(thread, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed here (some containers): the file opens at normal priority.
  }
}

lowerThisThreadsPriority();
const request = workerData as IngestRequest;
const reply = (message: IngestReply): void => parentPort?.postMessage(message);

try {
  reply({ ok: true, ingested: await ingestRecording(request.file, request.folder, request.limits) });
} catch (error) {
  reply(
    error instanceof RecordingFileError
      ? { ok: false, refused: true, message: error.message }
      : { ok: false, refused: false, message: error instanceof Error ? error.message : String(error) },
  );
}
