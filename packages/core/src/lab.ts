import type { LabExperimentDefinition, LabRun, LabVariant, LabVariantSummary } from '@aioscope/spec';
import { formatBytes, KILOBYTES } from './format.ts';
import { plural } from './labForm.ts';

/** Fewer rounds than this and medians are labelled indicative. */
export const MIN_ROUNDS_FOR_MEDIANS = 3;

export interface PlannedRun {
  variant: LabVariant;
  round: number;
}

/**
 * Runs in execution order, interleaved across variants (A B C A B C …), never all of A then all
 * of B: drift on a shared machine then lands on every variant alike.
 */
export function planRuns(definition: Pick<LabExperimentDefinition, 'rounds' | 'variants'>): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (let round = 1; round <= definition.rounds; round++) {
    for (const variant of definition.variants) runs.push({ variant, round });
  }
  return runs;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function summarizeLab(definition: LabExperimentDefinition, runs: readonly LabRun[]): LabVariantSummary[] {
  const perVariant = definition.variants.map((variant) => {
    const own = runs.filter((run) => run.variant === variant.name);
    const times = own.map((run) => run.executionMs);
    return {
      variant: variant.name,
      runs: own.length,
      medianMs: median(times) ?? 0,
      minMs: times.length > 0 ? Math.min(...times) : 0,
      maxMs: times.length > 0 ? Math.max(...times) : 0,
      medianBytesPerRead: median(own.flatMap((run) => (run.bytesPerRead === null ? [] : [run.bytesPerRead]))),
      medianIoReadTimeMs: median(own.flatMap((run) => (run.ioReadTimeMs === null ? [] : [run.ioReadTimeMs]))),
    };
  });
  const baseline = perVariant[definition.baseline]?.medianMs ?? 0;
  return perVariant
    .filter((summary) => summary.runs > 0)
    .map((summary) => ({ ...summary, ratioToBaseline: baseline > 0 ? summary.medianMs / baseline : 1 }));
}

/** The experiment's note when direct I/O was on: how to read its numbers. */
export const DIRECT_IO_NOTE =
  'direct I/O (debug_io_direct = data, a PostgreSQL developer setting): every read went to the device, none to the OS page cache';

/** Caveats that change how to read an experiment's numbers. */
export function labNotes(
  definition: Pick<LabExperimentDefinition, 'rounds' | 'cacheState' | 'directIo'>,
  osEvictionPossible: boolean,
): string[] {
  const notes: string[] = [];
  if (definition.directIo === true) notes.push(DIRECT_IO_NOTE);
  if (definition.rounds < MIN_ROUNDS_FOR_MEDIANS) {
    notes.push(`indicative: ${plural(definition.rounds, 'round')}; medians need at least ${MIN_ROUNDS_FOR_MEDIANS}`);
  }
  if (definition.cacheState === 'cold' && !osEvictionPossible) {
    notes.push('OS cache warm: this measures memory copies, not the disk (no file access to evict the OS page cache)');
  }
  // With direct I/O no read is served by the OS page cache, whatever it holds.
  if (definition.cacheState === 'shared-buffers-cold' && definition.directIo !== true) {
    notes.push('OS cache warm by design: reads come from the OS page cache, not the disk');
  }
  if (definition.cacheState === 'warm') notes.push('warm: the table is in shared buffers; few or no reads are issued');
  return notes;
}

interface ExplainNode {
  'Execution Time'?: number;
  Plan?: Record<string, unknown>;
}

export interface ExplainFigures {
  executionMs: number;
  sharedReadBlocks: number;
  sharedHitBlocks: number;
  ioReadTimeMs: number | null;
}

/**
 * Reads EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON). The top node's buffer counts include its
 * children. The read-time key is "I/O Read Time" on 16 and "Shared I/O Read Time" from 17.
 */
export function parseExplainJson(raw: unknown): ExplainFigures {
  const root = (Array.isArray(raw) ? raw[0] : raw) as ExplainNode | undefined;
  const plan = root?.Plan;
  if (root === undefined || plan === undefined || typeof root['Execution Time'] !== 'number') {
    throw new Error('EXPLAIN output has no plan or execution time');
  }
  const number = (key: string): number | null => (typeof plan[key] === 'number' ? (plan[key] as number) : null);
  return {
    executionMs: root['Execution Time'],
    sharedReadBlocks: number('Shared Read Blocks') ?? 0,
    sharedHitBlocks: number('Shared Hit Blocks') ?? 0,
    ioReadTimeMs: number('Shared I/O Read Time') ?? number('I/O Read Time'),
  };
}

/** The medians table as Markdown, with the caveats, for pasting into an issue or a chat. */
export function labSummaryToMarkdown(
  title: string,
  summary: readonly LabVariantSummary[],
  notes: readonly string[],
  baselineName: string,
): string {
  const lines = [
    `### ${title}`,
    '',
    `| variant | runs | median ms | min–max ms | vs ${baselineName} | bytes/read | I/O wait ms |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of summary) {
    lines.push(
      `| ${row.variant} | ${row.runs} | ${row.medianMs.toFixed(1)} | ${row.minMs.toFixed(1)}–${row.maxMs.toFixed(1)} | ${row.ratioToBaseline.toFixed(2)}× | ${formatBytes(row.medianBytesPerRead, 1, KILOBYTES)} | ${row.medianIoReadTimeMs === null ? '–' : row.medianIoReadTimeMs.toFixed(1)} |`,
    );
  }
  if (notes.length > 0) lines.push('', ...notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
