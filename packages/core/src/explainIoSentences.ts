import { EXPLAIN_IO_MIN_VERSION_NUM, type ExplainIoFigures, type LabVariant } from '@aioscope/spec';
import { plural } from './labForm.ts';

/**
 * What EXPLAIN IO's figures say, in words: one sentence per node or worker, and what each figure
 * means. Only what the figures support: no figure is estimated, and a leader's own share of a
 * parallel scan (EXPLAIN reports the node's total and each worker's) is never derived.
 */

const ENGLISH = new Intl.NumberFormat('en-US');

function count(value: number): string {
  return ENGLISH.format(Math.round(value));
}

/** One decimal, none when it is whole: 15.8, 1, 4.9. */
function oneDecimal(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1);
}

/** 59 %, 3.7 %, 0 %: whole percent from 10 % up, one decimal below. */
export function explainIoPercent(share: number): string {
  const percent = share * 100;
  return `${percent >= 10 ? String(Math.round(percent)) : oneDecimal(percent)} %`;
}

/** 8 kB, 127 kB, 4.5 kB. */
function kilobytes(bytes: number): string {
  const kb = bytes / 1024;
  return `${kb >= 10 ? String(Math.round(kb)) : oneDecimal(kb)} kB`;
}

/** "1 block (8 kB)", "15.8 blocks (127 kB)". */
export function explainIoSize(blocks: number, blockSize: number): string {
  const text = oneDecimal(blocks);
  return `${text} ${text === '1' ? 'block' : 'blocks'} (${kilobytes(blocks * blockSize)})`;
}

/** Averages that round to one block are reads of single blocks: nothing was combined. */
function readsNotCombined(figures: ExplainIoFigures): boolean {
  return oneDecimal(figures.averageIoSizeBlocks) === '1';
}

function oneInProgress(figures: ExplainIoFigures): boolean {
  return oneDecimal(figures.averageIosInProgress) === '1';
}

/** Who ran the node the figures are of: the sentence's subject and its possessive. */
export interface ExplainIoSubject {
  who: string;
  their: string;
}

export function explainIoSubject(parallelWorkers: number): ExplainIoSubject {
  return parallelWorkers > 0
    ? { who: `the leader and its ${plural(parallelWorkers, 'worker')}`, their: 'their' }
    : { who: 'the backend', their: 'its' };
}

export function explainIoWorkerSubject(workerNumber: number): ExplainIoSubject {
  return { who: `worker ${workerNumber}`, their: 'its' };
}

/**
 * The sentence the figures support, e.g. "effective_io_concurrency 1: one I/O in progress, the
 * backend waited for 59 % of its reads. Average I/O size 16 blocks (128 kB) over 7,568 I/Os."
 * The finding that stands out (reads one at a time, reads not combined) comes first.
 */
export function explainIoSentence(
  figures: ExplainIoFigures,
  blockSize: number,
  subject: ExplainIoSubject,
  condition?: string,
): string {
  const prefix = condition === undefined || condition === '' ? '' : `${condition}: `;
  if (figures.ioCount === 0) return `${prefix}${subject.who} issued no I/O (every block was in shared buffers).`;
  const inProgress = oneInProgress(figures)
    ? 'one I/O in progress'
    : `${oneDecimal(figures.averageIosInProgress)} I/Os in progress on average`;
  const waited = `${subject.who} waited for ${explainIoPercent(figures.ioWaits / figures.ioCount)} of ${subject.their} reads`;
  const concurrency = `${inProgress}, ${waited}`;
  const size = `Average I/O size ${explainIoSize(figures.averageIoSizeBlocks, blockSize)} over ${count(figures.ioCount)} I/Os${
    readsNotCombined(figures) ? ': reads are not combined' : ''
  }`;
  const sizeFirst = readsNotCombined(figures) && !oneInProgress(figures);
  const [first, second] = sizeFirst ? [size, capitalize(concurrency)] : [concurrency, size];
  return `${prefix}${first}. ${second}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A variant's condition as the sentence names it: its settings ("effective_io_concurrency 1"), else its name. */
export function labVariantCondition(variant: Pick<LabVariant, 'name' | 'session' | 'server'>): string {
  const settings = Object.entries({ ...variant.server, ...variant.session }).flatMap(([name, value]) =>
    value === undefined ? [] : [`${name} ${String(value)}`],
  );
  return settings.length > 0 ? settings.join(', ') : variant.name;
}

/** What the panel says where the server cannot report the figures. */
export function explainIoUnsupportedSentence(serverVersionNum: number): string {
  return `PostgreSQL ${Math.floor(serverVersionNum / 10000)} does not report per-node I/O figures; EXPLAIN IO is new in 19.`;
}

/**
 * What a process's detail says of per-node I/O figures. They come only from EXPLAIN (ANALYZE, IO),
 * which executes the statement again: a monitor must not do that to another session's query (a
 * second full scan on a busy server, or an UPDATE run twice).
 */
export function explainIoProcessSentence(serverVersionNum: number): string {
  if (serverVersionNum < EXPLAIN_IO_MIN_VERSION_NUM) return explainIoUnsupportedSentence(serverVersionNum);
  return "Per-node I/O figures come from EXPLAIN (ANALYZE, IO), which runs the statement again: aioscope does not do that to another session's query. Run it yourself, or measure the scan in the lab.";
}

export const EXPLAIN_IO_NO_NODES =
  'The server reported no scan node with I/O figures for this statement (EXPLAIN IO covers Seq Scan, Bitmap Heap Scan and TID Range Scan).';

/** One figure as shown: its label, its value in words and units, and what it means. */
export interface ExplainIoFigureRow {
  key: keyof ExplainIoFigures;
  label: string;
  value: string;
  meaning: string;
}

/** The seven figures in EXPLAIN's order, each with its meaning in a sentence. */
export function explainIoFigureRows(figures: ExplainIoFigures, blockSize: number): ExplainIoFigureRow[] {
  const waitShare = figures.ioCount > 0 ? ` (${explainIoPercent(figures.ioWaits / figures.ioCount)})` : '';
  return [
    {
      key: 'averagePrefetchDistance',
      label: 'Prefetch distance, average',
      value: `${oneDecimal(figures.averagePrefetchDistance)} blocks`,
      meaning: 'How far ahead of the scan the read stream had asked for blocks, on average.',
    },
    {
      key: 'maxPrefetchDistance',
      label: 'Prefetch distance, max',
      value: `${count(figures.maxPrefetchDistance)} blocks`,
      meaning:
        'The farthest ahead it looked: the distance grows while blocks have to be read and shrinks while they are found in shared buffers.',
    },
    {
      key: 'prefetchCapacity',
      label: 'Prefetch capacity',
      value: `${count(figures.prefetchCapacity)} blocks`,
      meaning:
        'The farthest it was allowed to look: buffers it may pin, set by effective_io_concurrency, io_combine_limit and the share of shared buffers each backend may pin.',
    },
    {
      key: 'ioCount',
      label: 'I/Os',
      value: count(figures.ioCount),
      meaning: 'Reads issued to the operating system, each of one block or of several combined.',
    },
    {
      key: 'ioWaits',
      label: 'I/Os waited for',
      value: `${count(figures.ioWaits)}${waitShare}`,
      meaning: 'Reads not yet complete when the scan needed their block: the process stopped and waited.',
    },
    {
      key: 'averageIoSizeBlocks',
      label: 'Average I/O size',
      value: explainIoSize(figures.averageIoSizeBlocks, blockSize),
      meaning: 'Blocks per read: 1 means reads are not combined; io_combine_limit is the most one read may carry.',
    },
    {
      key: 'averageIosInProgress',
      label: 'Average I/Os in progress',
      // As EXPLAIN prints it, 1.0 rather than 1: the average of a count, not a count.
      value: figures.averageIosInProgress.toFixed(1),
      meaning: 'Reads in flight at once, on average: 1 means one read at a time, nothing overlapped.',
    },
  ];
}
