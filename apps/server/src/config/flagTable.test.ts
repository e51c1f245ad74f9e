import { describe, expect, it } from 'vitest';
import { CHECK_FLAGS, LAB_FLAGS, OPEN_FLAGS, START_FLAGS } from './commandFlags.ts';
import { HELP_FLAG, helpText, parseFlags, type CommandFlags, type FlagTable } from './flagTable.ts';

const DEMO = {
  usage: 'demo: a command for this test\n\nUsage: demo [options]',
  footer: 'Example: demo --size 3',
  negatable: true,
  flags: {
    size: { type: 'string', value: '<n>', default: '2', help: 'how many' },
    name: { type: 'string', value: '<name>', multiple: true, help: 'who; repeat it for several' },
    color: { type: 'boolean', shownAs: '--no-color', help: 'plain text' },
    'a-flag-with-a-long-name': { type: 'string', value: '<value>', help: 'a word '.repeat(20).trim() },
    help: HELP_FLAG,
  },
} as const satisfies CommandFlags<FlagTable>;

describe('parseFlags', () => {
  it('fills in the defaults, keeps every value of a repeated flag, and reads --no-<flag>', () => {
    const parsed = parseFlags(DEMO, ['--name', 'a', '--name', 'b', '--no-color']);
    expect(parsed).toEqual({
      ok: true,
      values: { size: '2', name: ['a', 'b'], color: false },
      positionals: [],
    });
  });

  it('answers --help and -h', () => {
    expect(parseFlags(DEMO, ['--help'])).toEqual({ ok: 'help' });
    expect(parseFlags(DEMO, ['--size', '3', '-h'])).toEqual({ ok: 'help' });
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--size'], "Option '--size <value>' argument missing"],
    [['extra'], "Unexpected argument 'extra'"],
  ])('refuses %j in one line', (argv, expected) => {
    const parsed = parseFlags(DEMO, argv);
    expect(parsed.ok).toBe(false);
    if (parsed.ok === false) {
      expect(parsed.error).toContain(expected);
      expect(parsed.error).not.toContain('\n');
    }
  });

  it('takes --no-<flag> only where the command allows it, and positionals only where it has them', () => {
    expect(parseFlags(LAB_FLAGS, ['--no-yes']).ok).toBe(false);
    expect(parseFlags(CHECK_FLAGS, ['postgres://h/db']).ok).toBe(false);
    expect(parseFlags(OPEN_FLAGS, ['file.aioscope.gz'])).toMatchObject({ ok: true, positionals: ['file.aioscope.gz'] });
  });
});

describe('helpText', () => {
  const help = helpText(DEMO);

  it('prints the usage, every flag in order with its default, and the footer', () => {
    expect(help).toMatch(/^demo: a command for this test\n\nUsage: demo \[options\]\n\nOptions:\n/);
    expect(help).toContain('  --size <n>            how many (default 2)\n');
    expect(help).toContain('  --no-color            plain text\n');
    expect(help).toContain('  -h, --help            show this help\n');
    expect(help.indexOf('--size')).toBeLessThan(help.indexOf('--name'));
    expect(help.endsWith('\nExample: demo --size 3\n')).toBe(true);
  });

  it('wraps long descriptions under their column and puts a long flag on a line of its own', () => {
    const lines = help.split('\n');
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(100);
    const long = lines.indexOf('  --a-flag-with-a-long-name <value>');
    expect(long).toBeGreaterThan(0);
    expect(lines[long + 1]).toMatch(/^ {24}a word a word/);
    expect(lines[long + 2]).toMatch(/^ {24}a word/);
  });

  it("lists every flag of every command, within a terminal's width", () => {
    const commands: CommandFlags<FlagTable>[] = [START_FLAGS, OPEN_FLAGS, LAB_FLAGS, CHECK_FLAGS];
    for (const command of commands) {
      const text = helpText(command);
      for (const [key, flag] of Object.entries(command.flags)) {
        expect(text).toContain(flag.shownAs ?? `--${key}`);
      }
      expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThanOrEqual(100);
    }
  });
});
