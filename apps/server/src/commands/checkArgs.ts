import { parseArgs } from 'node:util';
import { UPGRADE_TARGET_VERSIONS, type UpgradeTargetVersion } from '@aioscope/core';

/** The exit codes of `aioscope check`, as its help and the README state them. */
export const CHECK_EXIT = {
  pass: 0,
  warnings: 1,
  /** As for every aioscope command: the flags are wrong. */
  badInput: 2,
  couldNotCheck: 3,
} as const;

export const CHECK_HELP = `aioscope check: the settings audit and pre-upgrade check of one server, for scripts and CI

Usage: npm start -- check --db <url> [options]     (installed: npx aioscope check --db <url>)

Connects once, reads pg_settings (source, file and line), pg_tablespace, pg_db_role_setting and,
as a superuser, pg_config, then says for this server's settings what the next major version will
do with them and what to do before the upgrade (PostgreSQL 16 and 17: what 18 changes; 18: what 19
changes), with the current checks of 18 and 19. It writes nothing. A member of pg_monitor sees
every setting's file and line; any role can run it.

Options:
  --db <url>               the server, postgres:// or postgresql:// (password: PGPASSWORD,
                           PGPASSFILE or ~/.pgpass when the URL has none)
  --target-version <n>     18 or 19: the version to check for (default: the next one that
                           changes I/O: 18 from 16 and 17, 19 from 18)
  --json                   print the report as JSON (one object) instead of a table
  -h, --help               show this help

Exit codes:
  0  pass: nothing to change
  1  warnings: at least one finding says what to change
  2  bad input: wrong flags
  3  could not check: the server cannot be reached, is older than 16, or refused a query

Example: npm start -- check --db postgres://monitor@db1/postgres --target-version 18
`;

export type CheckArgs =
  | { ok: 'help' }
  | { ok: false; error: string }
  | { ok: true; db: string; targetVersion: UpgradeTargetVersion | undefined; json: boolean };

/** Flags → options, or the one line that says what is wrong. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        db: { type: 'string' },
        'target-version': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0] ?? 'invalid arguments' };
  }
  if (values.help === true) return { ok: 'help' };
  const db = values.db;
  if (typeof db !== 'string' || db === '') return { ok: false, error: 'check needs --db <url>' };
  if (!/^postgres(ql)?:\/\//.test(db)) return { ok: false, error: '--db must start with postgres:// or postgresql://' };
  const rawTarget = values['target-version'];
  let targetVersion: UpgradeTargetVersion | undefined;
  if (typeof rawTarget === 'string') {
    targetVersion = UPGRADE_TARGET_VERSIONS.find((version) => String(version) === rawTarget);
    if (targetVersion === undefined) {
      return { ok: false, error: `--target-version must be ${UPGRADE_TARGET_VERSIONS.join(' or ')}, not ${rawTarget}` };
    }
  }
  return { ok: true, db, targetVersion, json: values.json === true };
}
