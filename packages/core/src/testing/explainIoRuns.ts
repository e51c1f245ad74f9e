import type { LabRun } from '@aioscope/spec';
import { explainIoReport } from '../explainIo.ts';
import { loadFixture } from '../testFixtures.ts';

/** The six EXPLAIN (ANALYZE, IO) answers recorded from PostgreSQL 19beta2 (fixtures/servers, kept as recorded). */
export const EXPLAIN_IO_VARIANTS = [
  'serial_eic16_icl16',
  'serial_eic1',
  'serial_icl1',
  'parallel2',
  'oscache_serial',
  'bitmap',
] as const;
export type RecordedExplainIo = (typeof EXPLAIN_IO_VARIANTS)[number];

/** The recording's table: 947 MB in 121,213 blocks, i.e. the default block size. */
export const RECORDED_BLOCK_SIZE = 8192;

interface ExplainIoRecording {
  variants: Record<string, { explain: unknown }>;
}
let recorded: ExplainIoRecording | undefined;

/** PostgreSQL's JSON answer of one recorded variant, as returned. */
export function recordedExplainIo(variant: RecordedExplainIo): unknown {
  const fixture = (recorded ??= loadFixture<ExplainIoRecording>('servers/pg19beta2-explain-io.json'));
  return fixture.variants[variant]?.explain;
}

/** A lab run whose EXPLAIN answered as the recorded variant did (versionNum: the server that ran it). */
export function labRunWithExplainIo(
  variant: string,
  round: number,
  answer: RecordedExplainIo,
  versionNum = 190000,
): LabRun {
  return {
    ...{ variant, round, startedAt: round, ioMethod: 'worker', cacheState: 'cold', osResidencyBefore: 0 },
    ...{ executionMs: 1, sharedReadBlocks: 1, sharedHitBlocks: 0, ioReadTimeMs: null },
    ...{ reads: null, readBytes: null, bytesPerRead: null },
    explainIo: explainIoReport(recordedExplainIo(answer), versionNum, RECORDED_BLOCK_SIZE),
  };
}
