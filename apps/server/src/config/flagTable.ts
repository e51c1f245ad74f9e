import { parseArgs } from 'node:util';
import { wrapWords } from '../system/wrapWords.ts';

/** One flag of a command: how it is read, its default, and what --help says of it. */
export interface Flag {
  readonly type: 'string' | 'boolean';
  /** The value's name in --help: `--db <url>`. */
  readonly value?: string;
  readonly short?: string;
  /** Given more than once, every value is kept (`--db` for several servers). */
  readonly multiple?: boolean;
  /** Used when the flag is absent, and printed in --help as "(default …)". */
  readonly default?: string;
  /** How --help names the flag when not as `--<key>`: `--no-demo` for a flag that is on by default. */
  readonly shownAs?: string;
  readonly help: string;
}

export type FlagTable = Readonly<Record<string, Flag>>;

/** A command line: its flags and the text --help prints around them. */
export interface CommandFlags<T extends FlagTable> {
  /** What --help prints above the options: a line on what it does, usage, notes. */
  readonly usage: string;
  /** What --help prints below the options: environment, exit codes, an example. */
  readonly footer?: string;
  readonly flags: T;
  /** `--no-<flag>` sets a boolean flag false (`--no-demo`, `--no-record`). */
  readonly negatable?: boolean;
  /** Arguments that are not flags (`open FILE`). */
  readonly positionals?: boolean;
}

type FlagValue<F extends Flag> = F extends { type: 'boolean' }
  ? boolean | undefined
  : F extends { multiple: true }
    ? string[] | undefined
    : F extends { default: string }
      ? string
      : string | undefined;

export type FlagValues<T extends FlagTable> = { -readonly [K in keyof T]: FlagValue<T[K]> };

export type ParsedFlags<T extends FlagTable> =
  { ok: true; values: FlagValues<T>; positionals: string[] } | { ok: false; error: string } | { ok: 'help' };

/** The flag every command has; a table that lists it gets `{ ok: 'help' }` from parseFlags. */
export const HELP_FLAG = { type: 'boolean', short: 'h', help: 'show this help' } as const satisfies Flag;

/** Reads argv against a command's table. Never throws: a bad flag is the one line parseArgs wrote. */
export function parseFlags<T extends FlagTable>(command: CommandFlags<T>, argv: readonly string[]): ParsedFlags<T> {
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, flag]) => [
      name,
      {
        type: flag.type,
        ...(flag.short === undefined ? {} : { short: flag.short }),
        ...(flag.multiple === true ? { multiple: true } : {}),
        ...(flag.default === undefined ? {} : { default: flag.default }),
      },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: command.positionals === true,
      allowNegative: command.negatable === true,
    });
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0] ?? 'invalid arguments' };
  }
  if (parsed.values.help === true) return { ok: 'help' };
  return { ok: true, values: parsed.values as FlagValues<T>, positionals: parsed.positionals };
}

/** Where a flag's description starts, and the width --help is wrapped to (a terminal's 100 columns). */
const DESCRIPTION_COLUMN = 24;
const HELP_WIDTH = 100;

function flagName(key: string, flag: Flag): string {
  const long = flag.shownAs ?? `--${key}`;
  const named = flag.value === undefined ? long : `${long} ${flag.value}`;
  return flag.short === undefined ? named : `-${flag.short}, ${named}`;
}

/** The --help text of a command: its usage, every flag of its table in order, its footer. */
export function helpText<T extends FlagTable>(command: CommandFlags<T>): string {
  const rows = Object.entries(command.flags).map(([key, flag]) => {
    const name = `  ${flagName(key, flag)}`;
    const description = flag.default === undefined ? flag.help : `${flag.help} (default ${flag.default})`;
    const [first = '', ...rest] = wrapWords(description, HELP_WIDTH - DESCRIPTION_COLUMN);
    const lead =
      name.length + 2 <= DESCRIPTION_COLUMN
        ? [`${name.padEnd(DESCRIPTION_COLUMN)}${first}`]
        : [name, `${' '.repeat(DESCRIPTION_COLUMN)}${first}`];
    return [...lead, ...rest.map((line) => `${' '.repeat(DESCRIPTION_COLUMN)}${line}`)].join('\n');
  });
  const footer = command.footer === undefined ? '' : `\n${command.footer.trimEnd()}\n`;
  return `${command.usage.trimEnd()}\n\nOptions:\n${rows.join('\n')}\n${footer}`;
}
