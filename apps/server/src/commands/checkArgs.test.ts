import { describe, expect, it } from 'vitest';
import { CHECK_HELP, parseCheckArgs } from './checkArgs.ts';

describe('aioscope check arguments', () => {
  it('takes --db, --target-version and --json', () => {
    expect(parseCheckArgs(['--db', 'postgres://u@h/db', '--target-version', '19', '--json'])).toEqual({
      ok: true,
      db: 'postgres://u@h/db',
      targetVersion: 19,
      json: true,
    });
    expect(parseCheckArgs(['--db', 'postgresql://u@h/db'])).toMatchObject({
      ok: true,
      targetVersion: undefined,
      json: false,
    });
  });

  it('says in one line what is wrong', () => {
    expect(parseCheckArgs([])).toEqual({ ok: false, error: 'check needs --db <url>' });
    expect(parseCheckArgs(['--db', 'h/db'])).toMatchObject({
      ok: false,
      error: expect.stringContaining('postgres://'),
    });
    expect(parseCheckArgs(['--db', 'postgres://h/db', '--target-version', '17'])).toEqual({
      ok: false,
      error: '--target-version must be 18 or 19, not 17',
    });
    const unknown = parseCheckArgs(['--db', 'postgres://h/db', '--verbose']);
    expect(unknown.ok).toBe(false);
    if (unknown.ok === false) expect(unknown.error).not.toContain('\n');
  });

  it('documents every exit code in --help', () => {
    expect(parseCheckArgs(['-h'])).toEqual({ ok: 'help' });
    for (const line of ['0  pass', '1  warnings', '2  bad input', '3  could not check'])
      expect(CHECK_HELP).toContain(line);
  });
});
