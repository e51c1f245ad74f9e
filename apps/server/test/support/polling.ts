import v8 from 'node:v8';
import vm from 'node:vm';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `condition` every `everyMs` until it holds; throws naming `what` when `timeoutMs` passes.
 * Returns the milliseconds it took, so tests can assert on recovery times.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<number> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Rejects with a message naming `what` when `promise` takes longer than `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let collect: (() => void) | null = null;

/**
 * heapUsed after a full garbage collection, so a comparison measures what is retained rather than
 * what happens not to be collected yet. The gc function is reached without --expose-gc on the
 * command line: the flag is set at run time and gc() is read from a fresh context.
 */
export function retainedHeapBytes(): number {
  if (collect === null) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/** Bytes held outside the JS heap in Buffers and ArrayBuffers (socket write queues live there). */
export function bufferBytes(): number {
  return process.memoryUsage().arrayBuffers;
}
