import { describe, expect, it } from 'vitest';
import { labExperimentSchema, type LabRun } from '@aioscope/spec';
import {
  checkLabForm,
  describeLabActivity,
  describeLabInputIssue,
  formatLabRunLine,
  parseWholeNumber,
  plural,
} from './labForm.ts';
import { parseVariants } from './labVariants.ts';

const FORM = {
  variants: 'eic=1;eic=16',
  cacheState: 'cold',
  rounds: '5',
  tableMb: '256',
  confirmTarget: null,
} as const;

function issueFor(input: unknown): string {
  const parsed = labExperimentSchema.safeParse(input);
  if (parsed.success) throw new Error('expected a rejection');
  return describeLabInputIssue(parsed.error.issues[0], input);
}

describe('variants that combine settings', () => {
  it('"eic=16,icl=1" is one variant the experiment schema accepts, as the UI, help and README offer it', () => {
    const variants = parseVariants('eic=16,icl=1;icl=16');
    expect(variants).toEqual([
      { name: 'eic=16,icl=1', session: { effective_io_concurrency: 16, io_combine_limit: 1 }, server: {} },
      { name: 'icl=16', session: { io_combine_limit: 16 }, server: {} },
    ]);
    const checked = labExperimentSchema.safeParse({ tableMb: 64, cacheState: 'cold', variants });
    expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
    expect(
      labExperimentSchema.safeParse({
        tableMb: 64,
        cacheState: 'cold',
        variants: parseVariants('io_method=worker,io_workers=8,eic=64,icl=16'),
      }).success,
    ).toBe(true);
  });

  it('says what is wrong with a value next to what was typed, before anything is sent', () => {
    expect(parseVariants('eic=abc')).toBe('eic=abc: effective_io_concurrency takes a whole number from 0 to 1000');
    expect(parseVariants('icl=0')).toBe('icl=0: io_combine_limit takes a whole number from 1 to 128');
    expect(parseVariants('io_method=posix')).toBe('io_method=posix: io_method is sync, worker, io_uring');
    expect(parseVariants('eic=1,eic=2')).toBe('"eic=1,eic=2" sets effective_io_concurrency twice');
    expect(parseVariants('work_mem=1')).toMatch(/^unknown setting "work_mem=1"/);
  });
});

describe('number fields', () => {
  it('keeps blank as blank and says so, instead of turning it into 0', () => {
    expect(parseWholeNumber('', 'rounds', 1, 20)).toEqual({ error: 'rounds: enter a whole number from 1 to 20' });
    expect(parseWholeNumber(' 3 ', 'rounds', 1, 20)).toBe(3);
    expect(parseWholeNumber('03', 'rounds', 1, 20)).toBe(3);
    expect(parseWholeNumber('2.5', 'rounds', 1, 20)).toEqual({ error: 'rounds: "2.5" is not a whole number' });
    expect(parseWholeNumber('99', 'rounds', 1, 20)).toEqual({ error: 'rounds: 99 is outside 1–20' });
  });
});

describe('the lab form', () => {
  it('turns valid fields into an experiment the schema accepts', () => {
    const checked = checkLabForm({ ...FORM, variants: 'eic=16,icl=1;eic=1', confirmTarget: 'app@db1' });
    if (!('input' in checked)) throw new Error(checked.errors.join('; '));
    expect(checked.input).toMatchObject({ rounds: 5, tableMb: 256, confirmTarget: 'app@db1' });
    expect(labExperimentSchema.safeParse(checked.input).success).toBe(true);
  });

  it('asks for direct I/O only when its box is ticked', () => {
    const ticked = checkLabForm({ ...FORM, directIo: true });
    const unticked = checkLabForm({ ...FORM, directIo: false });
    if (!('input' in ticked) || !('input' in unticked)) throw new Error('form refused');
    expect(labExperimentSchema.parse(ticked.input).directIo).toBe(true);
    expect(unticked.input).not.toHaveProperty('directIo');
    expect(issueFor({ tableMb: 64, cacheState: 'cold', directIo: 'yes', variants: [{ name: 'a' }] })).toBe(
      'direct I/O: must be a boolean',
    );
  });

  it('lists every problem at once, each in its own words', () => {
    expect(checkLabForm({ ...FORM, variants: 'eic=abc', rounds: '', tableMb: '8' })).toEqual({
      errors: [
        'eic=abc: effective_io_concurrency takes a whole number from 0 to 1000',
        'rounds: enter a whole number from 1 to 20',
        'table MB: 8 is outside 16–4096',
      ],
    });
    expect(checkLabForm({ ...FORM, variants: ' ; ' })).toEqual({ errors: ['add at least one variant'] });
    expect(checkLabForm({ ...FORM, variants: 'eic=1;eic=1' })).toEqual({ errors: ['each variant appears once'] });
  });
});

describe('rejections over REST read as sentences, not schema paths', () => {
  it('names the variant and the setting', () => {
    expect(
      issueFor({
        tableMb: 64,
        cacheState: 'cold',
        variants: [{ name: 'eic=abc', session: { effective_io_concurrency: 'abc' } }],
      }),
    ).toBe('variant "eic=abc", effective_io_concurrency: must be a number');
    expect(issueFor({ tableMb: 64, cacheState: 'cold', variants: [{ name: 'a', session: { work_mem: 1 } }] })).toBe(
      'variant "a": unknown key work_mem',
    );
  });

  it('names the field and the limit', () => {
    expect(issueFor({ tableMb: 1e9, cacheState: 'cold', variants: [{ name: 'a' }] })).toBe(
      'table MB: must be at most 4096',
    );
    expect(issueFor({ tableMb: 64, cacheState: 'lukewarm', variants: [{ name: 'a' }] })).toBe(
      'cache state: must be one of cold, shared-buffers-cold, warm',
    );
    expect(issueFor({ tableMb: 64, cacheState: 'cold', rounds: 2.5, variants: [{ name: 'a' }] })).toBe(
      'rounds: must be a whole number',
    );
    expect(issueFor('junk')).toBe('experiment: must be an object');
  });
});

describe('words', () => {
  it('says "1 round" and "5 rounds"', () => {
    expect(plural(1, 'round')).toBe('1 round');
    expect(plural(5, 'round')).toBe('5 rounds');
    expect(plural(0, 'run')).toBe('0 runs');
  });

  it('prints bytes per read for every run, a dash where it is unknown', () => {
    const run: LabRun = {
      variant: 'icl=16',
      round: 2,
      startedAt: 0,
      ioMethod: 'worker',
      cacheState: 'cold',
      osResidencyBefore: 0,
      executionMs: 123.456,
      sharedReadBlocks: 8192,
      sharedHitBlocks: 0,
      ioReadTimeMs: 10,
      reads: 512,
      readBytes: 512 * 131072,
      bytesPerRead: 131072,
    };
    expect(formatLabRunLine(run)).toBe(
      '  round 2 icl=16: 123.5 ms, 128.0 kB/read, io_method worker, OS cache 0 % before',
    );
    expect(formatLabRunLine({ ...run, bytesPerRead: null, osResidencyBefore: null })).toBe(
      '  round 2 icl=16: 123.5 ms, bytes/read –, io_method worker',
    );
  });
});

describe('the notice while an experiment holds the lab', () => {
  it('says the server runs with the experiment settings while a variant restarted it', () => {
    const text = describeLabActivity({ id: 'abc', serverSettings: { io_method: 'sync' }, restoring: false });
    expect(text).toMatch(/experiment abc is running/);
    expect(text).toMatch(/restarted the embedded server with io_method = sync, which holds until the experiment ends/);
    expect(describeLabActivity({ id: 'abc', serverSettings: {}, restoring: false })).not.toMatch(/restarted/);
    expect(describeLabActivity({ id: 'abc', serverSettings: { io_workers: '1' }, restoring: true })).toMatch(
      /being restarted with its own settings \(it runs with io_workers = 1 until then\)/,
    );
  });
});
