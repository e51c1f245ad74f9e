import { describe, expect, it } from 'vitest';
import { labExperimentSchema } from '@aioscope/spec';
import {
  DIRECT_IO_NOTE,
  labNotes,
  labSummaryToMarkdown,
  median,
  parseExplainJson,
  planRuns,
  summarizeLab,
} from './lab.ts';
import { loadFixture } from './testFixtures.ts';
import { labRun as run } from './testing/labRuns.ts';

const definition = labExperimentSchema.parse({
  tableMb: 64,
  cacheState: 'cold',
  rounds: 3,
  variants: [{ name: 'A' }, { name: 'B', session: { effective_io_concurrency: 64 } }, { name: 'C' }],
});

describe('planRuns', () => {
  it('interleaves variants round by round: A B C A B C A B C', () => {
    expect(planRuns(definition).map((p) => `${p.variant.name}${p.round}`)).toEqual([
      'A1',
      'B1',
      'C1',
      'A2',
      'B2',
      'C2',
      'A3',
      'B3',
      'C3',
    ]);
  });
});

describe('summaries', () => {
  it('computes medians, min–max and the ratio to the baseline', () => {
    const runs = [
      run('A', 1, 100),
      run('B', 1, 50),
      run('A', 2, 120),
      run('B', 2, 70),
      run('A', 3, 110),
      run('B', 3, 60),
    ];
    const [a, b] = summarizeLab(definition, runs);
    expect(a).toMatchObject({ variant: 'A', runs: 3, medianMs: 110, minMs: 100, maxMs: 120, ratioToBaseline: 1 });
    expect(b?.medianMs).toBe(60);
    expect(b?.ratioToBaseline).toBeCloseTo(60 / 110);
  });

  it('takes the middle of an even count and nothing of none', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('labels few rounds indicative and a cold run without file access OS-cache warm', () => {
    expect(labNotes({ rounds: 2, cacheState: 'cold' }, true).join(' ')).toMatch(/indicative/);
    expect(labNotes({ rounds: 1, cacheState: 'cold' }, true)).toEqual(['indicative: 1 round; medians need at least 3']);
    expect(labNotes({ rounds: 5, cacheState: 'cold' }, true)).toEqual([]);
    expect(labNotes({ rounds: 5, cacheState: 'cold' }, false).join(' ')).toMatch(
      /OS cache warm: this measures memory copies, not the disk/,
    );
  });

  it('says direct I/O was on, and drops the OS-cache caveat it makes untrue', () => {
    expect(labNotes({ rounds: 5, cacheState: 'cold', directIo: true }, true)).toEqual([DIRECT_IO_NOTE]);
    expect(labNotes({ rounds: 5, cacheState: 'shared-buffers-cold', directIo: true }, true)).toEqual([DIRECT_IO_NOTE]);
    expect(labNotes({ rounds: 5, cacheState: 'shared-buffers-cold' }, true).join(' ')).toMatch(
      /OS cache warm by design/,
    );
  });
});

describe('parseExplainJson (recorded on PostgreSQL 18)', () => {
  it('reads execution time, shared reads and I/O time of a cold scan', () => {
    const fixture = loadFixture<{ tableBytes: number; plan: unknown }>('pg18-explain.json');
    const figures = parseExplainJson(fixture.plan);
    expect(figures.executionMs).toBeGreaterThan(0);
    expect(figures.sharedReadBlocks * 8192).toBeGreaterThan(fixture.tableBytes * 0.98);
    expect(figures.ioReadTimeMs).not.toBeNull();
  });

  it('rejects output without a plan', () => {
    expect(() => parseExplainJson([{}])).toThrow(/no plan/);
    expect(() => parseExplainJson('junk')).toThrow(/no plan/);
  });
});

describe('exports', () => {
  it('writes the medians as a Markdown table with its caveats', () => {
    const md = labSummaryToMarkdown('t', summarizeLab(definition, [run('A', 1, 100)]), ['indicative: 1 round(s)'], 'A');
    expect(md).toMatch(/\| A \| 1 \| 100\.0 \| 100\.0–100\.0 \| 1\.00× \| 128\.0 kB \| 10\.0 \|/);
    expect(md).toMatch(/- indicative/);
  });
});

describe('labExperimentSchema: hostile input is rejected', () => {
  it.each([
    [{ tableMb: 64, cacheState: 'cold', variants: [{ name: "x'; DROP TABLE t; --" }] }],
    [{ tableMb: 64, cacheState: 'cold', variants: [{ name: 'a', session: { io_combine_limit: '16; DROP' } }] }],
    [{ tableMb: 64, cacheState: 'cold', variants: [{ name: 'a', session: { search_path: 'evil' } }] }],
    [{ tableMb: 1e12, cacheState: 'cold', variants: [{ name: 'a' }] }],
    [{ tableMb: 64, cacheState: 'cold', rounds: 1000, variants: [{ name: 'a' }] }],
    [{ tableMb: 64, cacheState: 'cold', variants: [{ name: 'a' }, { name: 'a' }] }],
    [{ tableMb: 64, cacheState: 'cold', variants: [{ name: 'a', server: { io_method: 'posix_aio' } }] }],
  ])('%j', (input) => {
    expect(labExperimentSchema.safeParse(input).success).toBe(false);
  });
});
