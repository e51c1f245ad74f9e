import { describe, expect, it } from 'vitest';
import { labExperimentSchema } from '@aioscope/spec';
import { explainIoMarkdown, explainIoOfVariants } from './explainIoLab.ts';
import { labRunWithExplainIo as runOf } from './testing/explainIoRuns.ts';

// Lab runs whose EXPLAIN answered as PostgreSQL 19beta2 did (fixtures/servers, kept as recorded).
const definition = labExperimentSchema.parse({
  tableMb: 947,
  cacheState: 'cold',
  rounds: 2,
  variants: [
    { name: 'eic=1', session: { effective_io_concurrency: 1 } },
    { name: 'parallel', session: {} },
  ],
});

describe('explainIoOfVariants', () => {
  it('takes each variant’s own rounds only, in the experiment’s order', () => {
    const variants = explainIoOfVariants({
      definition,
      runs: [runOf('eic=1', 1, 'serial_eic1'), runOf('parallel', 1, 'parallel2'), runOf('eic=1', 2, 'serial_eic1')],
    });
    expect(
      variants.map(({ variant, medians }) => [variant.name, medians.kind === 'reported' && medians.rounds]),
    ).toEqual([
      ['eic=1', 2],
      ['parallel', 1],
    ]);
  });
});

describe('explainIoMarkdown', () => {
  it('lists each scan node’s sentences per variant, workers under their node', () => {
    const markdown = explainIoMarkdown({
      definition,
      runs: [runOf('eic=1', 1, 'serial_eic1'), runOf('parallel', 1, 'parallel2'), runOf('eic=1', 2, 'serial_eic1')],
    });
    expect(markdown).toBe(
      [
        '',
        "#### EXPLAIN IO per scan node (medians of each variant's rounds)",
        '',
        'Seq Scan on t:',
        '',
        '- effective_io_concurrency 1: one I/O in progress, the backend waited for 59 % of its reads. Average I/O size 16 blocks (128 kB) over 7,568 I/Os. (eic=1, 2 rounds)',
        '- parallel: 5 I/Os in progress on average, the leader and its 2 workers waited for 5.8 % of their reads. Average I/O size 15.6 blocks (125 kB) over 7,429 I/Os. (parallel, 1 round)',
        '  - 5 I/Os in progress on average, worker 0 waited for 6.6 % of its reads. Average I/O size 15.6 blocks (125 kB) over 2,323 I/Os.',
        '  - 5 I/Os in progress on average, worker 1 waited for 5.2 % of its reads. Average I/O size 15.7 blocks (125 kB) over 2,502 I/Os.',
        '',
      ].join('\n'),
    );
  });

  it('adds nothing on PostgreSQL 18', () => {
    expect(explainIoMarkdown({ definition, runs: [runOf('eic=1', 1, 'serial_eic1', 180004)] })).toBe('');
  });
});
