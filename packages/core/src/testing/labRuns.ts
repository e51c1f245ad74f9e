import type { LabRun } from '@aioscope/spec';

/** A cold run of the worker method reading 8,192 blocks in 512 reads: the lab tests' ordinary run. */
export function labRun(
  variant: string,
  round: number,
  executionMs: number,
  bytesPerRead: number | null = 131072,
): LabRun {
  return {
    variant,
    round,
    startedAt: round,
    ioMethod: 'worker',
    cacheState: 'cold',
    osResidencyBefore: 0,
    executionMs,
    sharedReadBlocks: 8192,
    sharedHitBlocks: 0,
    ioReadTimeMs: 10,
    reads: 512,
    readBytes: 512 * 131072,
    bytesPerRead,
  };
}
