import { describe, expect, it } from 'vitest';
import { labRunWithExplainIo as run, RECORDED_BLOCK_SIZE as BLOCK_SIZE } from '@aioscope/core/testing';
import { labExperimentSchema, type LabExperiment, type LabRun } from '@aioscope/spec';
import { explainIoViewOfExperiment, roundsText } from './explainIoView.ts';

// Lab runs whose EXPLAIN answered as PostgreSQL 19beta2 did (core/fixtures/servers, as recorded).
const definition = labExperimentSchema.parse({
  tableMb: 947,
  cacheState: 'cold',
  rounds: 3,
  variants: [
    { name: 'eic=1', session: { effective_io_concurrency: 1 } },
    { name: 'icl=1', session: { io_combine_limit: 1 } },
  ],
});

function experiment(runs: LabRun[]): Pick<LabExperiment, 'definition' | 'runs'> {
  return { definition, runs };
}

describe('explainIoViewOfExperiment', () => {
  it('puts each variant’s medians in a column of the scan node, with the sentence they support', () => {
    const view = explainIoViewOfExperiment(
      experiment([
        run('eic=1', 1, 'serial_eic1'),
        run('icl=1', 1, 'serial_icl1'),
        // A second and third round of eic=1 that differ: the column shows medians, not the last round.
        run('eic=1', 2, 'serial_eic16_icl16'),
        run('eic=1', 3, 'serial_eic1'),
      ]),
    );
    if (view.kind !== 'reported') throw new Error(view.kind);
    expect(view.nodes).toHaveLength(1);
    const [node] = view.nodes;
    expect(node?.title).toBe('Seq Scan on t');
    expect(node?.columns.map((column) => [column.heading, column.rounds])).toEqual([
      ['eic=1', 3],
      ['icl=1', 1],
    ]);
    const [eic1, icl1] = node?.columns ?? [];
    // waits 4450, 274, 4450 → 4450; I/Os 7568, 7421, 7568 → 7568; in progress 1.0, 4.935, 1.0 → 1.0.
    expect(eic1?.sentence).toBe(
      'effective_io_concurrency 1: one I/O in progress, the backend waited for 59 % of its reads. ' +
        'Average I/O size 16 blocks (128 kB) over 7,568 I/Os.',
    );
    expect(icl1?.sentence).toContain('io_combine_limit 1: Average I/O size 1 block (8 kB) over 120,642 I/Os');
    expect(eic1?.rows.map((row) => row.value)).toEqual([
      '23.4 blocks',
      '32 blocks',
      '32 blocks',
      '7,568',
      '4,450 (59 %)',
      '16 blocks (128 kB)',
      '1.0',
    ]);
    expect(node?.workers).toEqual([]);
  });

  it('gives a parallel node a table of its own: the whole node, then each worker', () => {
    const view = explainIoViewOfExperiment(experiment([run('eic=1', 1, 'parallel2')]));
    if (view.kind !== 'reported') throw new Error(view.kind);
    const [parallel] = view.nodes[0]?.workers ?? [];
    expect(parallel?.variant).toBe('eic=1');
    expect(parallel?.columns.map((column) => column.heading)).toEqual(['leader and workers', 'worker 0', 'worker 1']);
    expect(parallel?.columns.map((column) => column.rows[3]?.value)).toEqual(['7,429', '2,323', '2,502']);
    // The whole node's sentence is said once, under the node's own table.
    expect(view.nodes[0]?.columns[0]?.sentence).toContain(
      'the leader and its 2 workers waited for 5.8 % of their reads',
    );
    expect(parallel?.columns[0]?.sentence).toBeNull();
    expect(parallel?.columns[2]?.sentence).toContain('worker 1 waited for 5.2 % of its reads');
  });

  it('on PostgreSQL 18 says the server does not report them, with no figure', () => {
    const view = explainIoViewOfExperiment(experiment([run('eic=1', 1, 'serial_eic1', 180004)]));
    expect(view).toEqual({
      kind: 'message',
      message: 'PostgreSQL 18 does not report per-node I/O figures; EXPLAIN IO is new in 19.',
    });
  });

  it('shows nothing for runs saved before EXPLAIN IO was kept', () => {
    const old = { ...run('eic=1', 1, 'serial_eic1') };
    delete old.explainIo;
    expect(explainIoViewOfExperiment(experiment([old]))).toEqual({ kind: 'none' });
  });

  it('says so when a 19 server reported no scan node with figures', () => {
    const noScan: LabRun = {
      ...run('eic=1', 1, 'serial_eic1'),
      explainIo: { serverVersionNum: 190000, blockSize: BLOCK_SIZE, nodes: [] },
    };
    const view = explainIoViewOfExperiment(experiment([noScan]));
    expect(view.kind).toBe('message');
  });

  it('names what a column is of', () => {
    expect(roundsText(1)).toBe('1 round');
    expect(roundsText(5)).toBe('median of 5 rounds');
  });
});
