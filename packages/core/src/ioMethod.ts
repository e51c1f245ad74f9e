import type { AioState } from '@aioscope/spec';

/**
 * What pg_aios states, settings and wait events mean under each io_method. SUBMITTED is the same
 * word for three different places a read can be: queued for (or run by) an io worker, handed to
 * the kernel through io_uring, or being run by the issuing backend itself under sync.
 */
export type IoMethod = 'worker' | 'io_uring' | 'sync';

export function ioMethodOf(setting: string | null | undefined): IoMethod | null {
  return setting === 'worker' || setting === 'io_uring' || setting === 'sync' ? setting : null;
}

export interface StateGroup {
  key: 'submitted' | 'completedIo' | 'completed' | 'preparing';
  label: string;
  states: AioState[];
}

const SUBMITTED_LABEL: Record<IoMethod | 'unknown', string> = {
  worker: 'submitted (queued for or run by an io worker)',
  io_uring: 'in the kernel (submitted to io_uring)',
  sync: 'being read by the backend itself (sync)',
  unknown: 'submitted',
};

/** pg_aios states grouped as a reader thinks of them, named for the server's io_method. */
export function stateGroups(method: IoMethod | null): StateGroup[] {
  return [
    { key: 'submitted', label: SUBMITTED_LABEL[method ?? 'unknown'], states: ['SUBMITTED'] },
    { key: 'completedIo', label: 'completed, not yet processed', states: ['COMPLETED_IO'] },
    { key: 'completed', label: 'completed, awaiting issuer', states: ['COMPLETED_SHARED', 'COMPLETED_LOCAL'] },
    { key: 'preparing', label: 'being defined', states: ['HANDED_OUT', 'DEFINED', 'STAGED'] },
  ];
}

/** Settings that do nothing under another io_method: not shown as if they mattered. */
const WORKER_ONLY_SETTINGS = new Set(['io_workers', 'io_min_workers', 'io_max_workers']);

export function settingApplies(name: string, method: IoMethod | null): boolean {
  return method === null || method === 'worker' || !WORKER_ONLY_SETTINGS.has(name);
}

/** The wait events that tell whether reads are waiting, and on what, under each io_method. */
export function relevantWaitEvents(method: IoMethod | null): { events: string[]; note: string } {
  switch (method) {
    case 'worker':
      return {
        events: ['AioIoCompletion', 'AioWorkerSubmissionQueue', 'DataFileRead', 'IoWorkerMain'],
        note: 'AioIoCompletion: a backend waits for an io worker to finish its read. AioWorkerSubmissionQueue: the io workers\u2019 queue is full. DataFileRead: a synchronous read (an io worker running one, or a backend reading itself).',
      };
    case 'io_uring':
      return {
        events: ['AioIoUringSubmit', 'AioIoUringExecution', 'AioIoCompletion', 'DataFileRead'],
        note: 'io_uring has no io workers: AioIoUringSubmit is a backend handing reads to the kernel, AioIoUringExecution a backend waiting for the kernel to run them, AioIoCompletion a backend waiting for a read another one completed.',
      };
    case 'sync':
      return {
        events: ['DataFileRead', 'BufferIo'],
        note: 'io_method = sync: every backend reads for itself. DataFileRead is a backend in a read; BufferIo a backend waiting for another one\u2019s read of the same buffer.',
      };
    default:
      return { events: [], note: '' };
  }
}
