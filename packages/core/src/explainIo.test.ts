import { describe, expect, it } from 'vitest';
import type { ExplainIoReport } from '@aioscope/spec';
import { explainIoMedians, explainIoReport, parseExplainIoNodes } from './explainIo.ts';
import {
  recordedExplainIo as explainOf,
  RECORDED_BLOCK_SIZE as BLOCK_SIZE,
  type RecordedExplainIo,
} from './testing/explainIoRuns.ts';

// Real EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, IO, FORMAT JSON) answers of PostgreSQL 19beta2
// (shared/fixtures/servers, copied unchanged).
const PG19 = 190000;

describe('parseExplainIoNodes (PostgreSQL 19beta2)', () => {
  it('finds the one Seq Scan of the serial default scan with its seven figures', () => {
    expect(parseExplainIoNodes(explainOf('serial_eic16_icl16'))).toEqual([
      {
        path: '0.0',
        nodeType: 'Seq Scan',
        relationName: 't',
        figures: {
          averagePrefetchDistance: 83.193,
          maxPrefetchDistance: 92,
          prefetchCapacity: 94,
          ioCount: 7421,
          ioWaits: 274,
          averageIoSizeBlocks: 15.838,
          averageIosInProgress: 4.935,
        },
        workers: [],
      },
    ]);
  });

  it('reads effective_io_concurrency 1 and io_combine_limit 1 as recorded', () => {
    const [eic1] = parseExplainIoNodes(explainOf('serial_eic1'));
    expect(eic1?.figures).toMatchObject({ ioCount: 7568, ioWaits: 4450, averageIosInProgress: 1.0 });
    const [icl1] = parseExplainIoNodes(explainOf('serial_icl1'));
    expect(icl1?.figures).toMatchObject({ ioCount: 120642, averageIoSizeBlocks: 1.0, prefetchCapacity: 17 });
  });

  it('keeps each parallel worker apart from the node total, deep under Gather', () => {
    const nodes = parseExplainIoNodes(explainOf('parallel2'));
    expect(nodes).toHaveLength(1);
    const [scan] = nodes;
    expect(scan?.path).toBe('0.0.0.0');
    expect(scan?.figures.ioCount).toBe(7429);
    expect(scan?.workers).toEqual([
      {
        workerNumber: 0,
        figures: {
          averagePrefetchDistance: 82.821,
          maxPrefetchDistance: 91,
          prefetchCapacity: 94,
          ioCount: 2323,
          ioWaits: 154,
          averageIoSizeBlocks: 15.624,
          averageIosInProgress: 4.957,
        },
      },
      {
        workerNumber: 1,
        figures: {
          averagePrefetchDistance: 82.949,
          maxPrefetchDistance: 91,
          prefetchCapacity: 94,
          ioCount: 2502,
          ioWaits: 131,
          averageIoSizeBlocks: 15.652,
          averageIosInProgress: 4.959,
        },
      },
    ]);
  });

  it('takes the Bitmap Heap Scan and not its Bitmap Index Scan, which has no read stream', () => {
    const nodes = parseExplainIoNodes(explainOf('bitmap'));
    expect(nodes.map((node) => [node.path, node.nodeType, node.figures.ioCount])).toEqual([
      ['0.0', 'Bitmap Heap Scan', 2655],
    ]);
  });

  it('reads the warm OS cache run too', () => {
    expect(parseExplainIoNodes(explainOf('oscache_serial'))[0]?.figures).toMatchObject({ ioCount: 7579, ioWaits: 146 });
  });

  it('skips a node with only some of the figures rather than inventing the rest', () => {
    const partial = [{ Plan: { 'Node Type': 'Seq Scan', 'I/O Count': 3, Plans: [] } }];
    expect(parseExplainIoNodes(partial)).toEqual([]);
    expect(() => parseExplainIoNodes('junk')).toThrow(/no plan/);
  });
});

describe('explainIoReport', () => {
  it('keeps the nodes on 19 and says there are none before 19', () => {
    const on19 = explainIoReport(explainOf('serial_eic1'), 190000, BLOCK_SIZE);
    expect(on19.nodes).toHaveLength(1);
    // PostgreSQL 18's answer has no such keys, and no node is read from it at all.
    expect(explainIoReport(explainOf('serial_eic1'), 180004, BLOCK_SIZE)).toEqual({
      serverVersionNum: 180004,
      blockSize: BLOCK_SIZE,
      nodes: null,
    });
  });
});

describe('explainIoMedians', () => {
  const report = (variant: RecordedExplainIo): ExplainIoReport => explainIoReport(explainOf(variant), PG19, BLOCK_SIZE);

  it('takes each figure’s median over the rounds, per node and per worker', () => {
    // Three rounds of the same plan: the defaults, the warm OS cache and the parallel scan's total.
    const rounds = [report('serial_eic16_icl16'), report('oscache_serial'), report('serial_eic1')];
    const medians = explainIoMedians(rounds);
    expect(medians.kind).toBe('reported');
    if (medians.kind !== 'reported') return;
    expect(medians.rounds).toBe(3);
    expect(medians.nodes).toHaveLength(1);
    // ioCount 7421, 7579, 7568 → 7568; ioWaits 274, 146, 4450 → 274; in progress 4.935, 4.981, 1.0 → 4.935.
    expect(medians.nodes[0]?.figures).toMatchObject({ ioCount: 7568, ioWaits: 274, averageIosInProgress: 4.935 });
  });

  it('counts a worker’s rounds apart: a worker may not launch every time', () => {
    const parallel = report('parallel2');
    const fewerWorkers: ExplainIoReport = {
      ...parallel,
      nodes: (parallel.nodes ?? []).map((node) => ({ ...node, workers: node.workers.slice(0, 1) })),
    };
    const medians = explainIoMedians([parallel, fewerWorkers]);
    if (medians.kind !== 'reported') throw new Error(medians.kind);
    expect(medians.nodes[0]?.workers.map((worker) => [worker.workerNumber, worker.rounds])).toEqual([
      [0, 2],
      [1, 1],
    ]);
    expect(medians.nodes[0]?.workers[1]?.figures.ioCount).toBe(2502);
  });

  it('says when the server cannot report them, and when no round has them', () => {
    expect(explainIoMedians([explainIoReport([], 180004, BLOCK_SIZE)])).toEqual({
      kind: 'unsupported',
      serverVersionNum: 180004,
    });
    expect(explainIoMedians([undefined, undefined])).toEqual({ kind: 'none' });
  });
});
