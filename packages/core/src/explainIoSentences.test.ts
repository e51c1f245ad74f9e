import { describe, expect, it } from 'vitest';
import type { ExplainIoNode } from '@aioscope/spec';
import { parseExplainIoNodes } from './explainIo.ts';
import {
  explainIoFigureRows,
  explainIoProcessSentence,
  explainIoSentence,
  explainIoSubject,
  explainIoUnsupportedSentence,
  explainIoWorkerSubject,
  labVariantCondition,
} from './explainIoSentences.ts';
import {
  recordedExplainIo,
  RECORDED_BLOCK_SIZE as BLOCK_SIZE,
  type RecordedExplainIo,
} from './testing/explainIoRuns.ts';

// Real answers of PostgreSQL 19beta2, six variants (shared/fixtures/servers, copied unchanged).
function scanOf(variant: RecordedExplainIo): ExplainIoNode {
  const node = parseExplainIoNodes(recordedExplainIo(variant))[0];
  if (node === undefined) throw new Error(`no scan node in ${variant}`);
  return node;
}

const serial = explainIoSubject(0);

describe('explainIoSentence, one per fixture variant', () => {
  it('effective_io_concurrency 1: one read at a time, 59 % waited for', () => {
    const sentence = explainIoSentence(scanOf('serial_eic1').figures, BLOCK_SIZE, serial, 'effective_io_concurrency 1');
    expect(sentence).toBe(
      'effective_io_concurrency 1: one I/O in progress, the backend waited for 59 % of its reads. ' +
        'Average I/O size 16 blocks (128 kB) over 7,568 I/Os.',
    );
  });

  it('io_combine_limit 1: single-block reads lead the sentence', () => {
    const sentence = explainIoSentence(scanOf('serial_icl1').figures, BLOCK_SIZE, serial, 'io_combine_limit 1');
    expect(sentence).toBe(
      'io_combine_limit 1: Average I/O size 1 block (8 kB) over 120,642 I/Os: reads are not combined. ' +
        '16 I/Os in progress on average, the backend waited for 2.1 % of its reads.',
    );
  });

  it('defaults: reads combined and overlapped, few waits', () => {
    expect(explainIoSentence(scanOf('serial_eic16_icl16').figures, BLOCK_SIZE, serial)).toBe(
      '4.9 I/Os in progress on average, the backend waited for 3.7 % of its reads. ' +
        'Average I/O size 15.8 blocks (127 kB) over 7,421 I/Os.',
    );
  });

  it('parallel: the node total names the leader and its workers, each worker speaks for itself', () => {
    const node = scanOf('parallel2');
    expect(explainIoSentence(node.figures, BLOCK_SIZE, explainIoSubject(node.workers.length))).toBe(
      '5 I/Os in progress on average, the leader and its 2 workers waited for 5.8 % of their reads. ' +
        'Average I/O size 15.6 blocks (125 kB) over 7,429 I/Os.',
    );
    const [first, second] = node.workers;
    if (first === undefined || second === undefined) throw new Error('two workers expected');
    expect(explainIoSentence(first.figures, BLOCK_SIZE, explainIoWorkerSubject(first.workerNumber))).toBe(
      '5 I/Os in progress on average, worker 0 waited for 6.6 % of its reads. ' +
        'Average I/O size 15.6 blocks (125 kB) over 2,323 I/Os.',
    );
    expect(explainIoSentence(second.figures, BLOCK_SIZE, explainIoWorkerSubject(second.workerNumber))).toContain(
      'worker 1 waited for 5.2 % of its reads',
    );
  });

  it('warm OS cache: reads still issued, fewer waited for', () => {
    expect(explainIoSentence(scanOf('oscache_serial').figures, BLOCK_SIZE, serial, 'OS cache warm')).toBe(
      'OS cache warm: 5 I/Os in progress on average, the backend waited for 1.9 % of its reads. ' +
        'Average I/O size 16 blocks (128 kB) over 7,579 I/Os.',
    );
  });

  it('bitmap heap scan', () => {
    expect(explainIoSentence(scanOf('bitmap').figures, BLOCK_SIZE, serial)).toBe(
      '5 I/Os in progress on average, the backend waited for 11 % of its reads. ' +
        'Average I/O size 16 blocks (128 kB) over 2,655 I/Os.',
    );
  });

  it('a scan that issued no I/O says so rather than dividing by zero', () => {
    const none = { ...scanOf('serial_eic1').figures, ioCount: 0, ioWaits: 0 };
    expect(explainIoSentence(none, BLOCK_SIZE, serial)).toBe(
      'the backend issued no I/O (every block was in shared buffers).',
    );
  });
});

describe('explainIoFigureRows', () => {
  it('gives all seven figures with units and a meaning each', () => {
    const rows = explainIoFigureRows(scanOf('serial_eic1').figures, BLOCK_SIZE);
    expect(rows.map((row) => [row.label, row.value])).toEqual([
      ['Prefetch distance, average', '23.4 blocks'],
      ['Prefetch distance, max', '32 blocks'],
      ['Prefetch capacity', '32 blocks'],
      ['I/Os', '7,568'],
      ['I/Os waited for', '4,450 (59 %)'],
      ['Average I/O size', '16 blocks (128 kB)'],
      ['Average I/Os in progress', '1.0'],
    ]);
    for (const row of rows) expect(row.meaning.length).toBeGreaterThan(20);
  });
});

describe('labVariantCondition and the unsupported sentence', () => {
  it('names a variant by its settings, else by its name', () => {
    expect(labVariantCondition({ name: 'eic=1', session: { effective_io_concurrency: 1 }, server: {} })).toBe(
      'effective_io_concurrency 1',
    );
    expect(labVariantCondition({ name: 'baseline', session: {}, server: {} })).toBe('baseline');
  });

  it('on 18 says the server does not report them', () => {
    expect(explainIoUnsupportedSentence(180004)).toBe(
      'PostgreSQL 18 does not report per-node I/O figures; EXPLAIN IO is new in 19.',
    );
    expect(explainIoProcessSentence(180004)).toBe(explainIoUnsupportedSentence(180004));
  });

  it('in a process detail on 19 says why no EXPLAIN is run for another session', () => {
    expect(explainIoProcessSentence(190000)).toMatch(/runs the statement again: aioscope does not do that/);
  });
});
