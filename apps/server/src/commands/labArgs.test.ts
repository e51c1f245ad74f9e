import { describe, expect, it } from 'vitest';
import { parseVariants } from '@aioscope/core';
import { parseLabArgs } from './labArgs.ts';

describe('aioscope lab arguments', () => {
  it('defaults to the classic drill: effective_io_concurrency 1/16/64, cold, 5 rounds', () => {
    const args = parseLabArgs([]);
    if (args.ok !== true) throw new Error(JSON.stringify(args));
    expect(args.input.variants.map((v) => v.name)).toEqual(['eic=1', 'eic=16', 'eic=64']);
    expect(args.input.cacheState).toBe('cold');
    expect(args.input.rounds).toBe(5);
  });

  it('turns direct I/O on with --direct-io only', () => {
    const on = parseLabArgs(['--direct-io', '--rounds', '1']);
    const off = parseLabArgs([]);
    if (on.ok !== true || off.ok !== true) throw new Error(JSON.stringify([on, off]));
    expect(on.input.directIo).toBe(true);
    expect(off.input.directIo).toBeUndefined();
    expect(parseLabArgs(['--direct-io=yes']).ok).toBe(false);
  });

  it('splits session and server settings', () => {
    expect(parseVariants('io_method=sync;io_method=worker,io_workers=1;icl=1')).toEqual([
      { name: 'io_method=sync', session: {}, server: { io_method: 'sync' } },
      { name: 'io_method=worker,io_workers=1', session: {}, server: { io_method: 'worker', io_workers: 1 } },
      { name: 'icl=1', session: { io_combine_limit: 1 }, server: {} },
    ]);
  });

  it.each([
    [['--variants', 'work_mem=1'], /unknown setting "work_mem=1"/],
    [['--variants', "eic=1'; DROP TABLE x"], /unknown setting/],
    [['--rounds', 'many'], /--rounds must be a whole number/],
    [['--table-mb', '99999999'], /tableMb/],
    [['--cache', 'lukewarm'], /cacheState/],
    [['--variants', 'io_method=posix'], /io_method/],
    [['--frobnicate'], /Unknown option/],
  ])('rejects %j', (argv, pattern) => {
    const args = parseLabArgs(argv);
    expect(args.ok).toBe(false);
    if (args.ok === false) expect(args.error).toMatch(pattern);
  });
});
