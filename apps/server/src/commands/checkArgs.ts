import { UPGRADE_TARGET_VERSIONS, type UpgradeTargetVersion } from '@aioscope/core';
import { CHECK_FLAGS } from '../config/commandFlags.ts';
import { helpText, parseFlags } from '../config/flagTable.ts';

/** The exit codes of `aioscope check`, as its help and the README state them. */
export const CHECK_EXIT = {
  pass: 0,
  warnings: 1,
  /** As for every aioscope command: the flags are wrong. */
  badInput: 2,
  couldNotCheck: 3,
} as const;

export const CHECK_HELP = helpText(CHECK_FLAGS);

export type CheckArgs =
  | { ok: 'help' }
  | { ok: false; error: string }
  | { ok: true; db: string; targetVersion: UpgradeTargetVersion | undefined; json: boolean };

/** Flags → options, or the one line that says what is wrong. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs {
  const flags = parseFlags(CHECK_FLAGS, argv);
  if (flags.ok !== true) return flags;
  const { values } = flags;
  const db = values.db;
  if (db === undefined || db === '') return { ok: false, error: 'check needs --db <url>' };
  if (!/^postgres(ql)?:\/\//.test(db)) return { ok: false, error: '--db must start with postgres:// or postgresql://' };
  const rawTarget = values['target-version'];
  let targetVersion: UpgradeTargetVersion | undefined;
  if (rawTarget !== undefined) {
    targetVersion = UPGRADE_TARGET_VERSIONS.find((version) => String(version) === rawTarget);
    if (targetVersion === undefined) {
      return { ok: false, error: `--target-version must be ${UPGRADE_TARGET_VERSIONS.join(' or ')}, not ${rawTarget}` };
    }
  }
  return { ok: true, db, targetVersion, json: values.json === true };
}
