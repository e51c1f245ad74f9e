import { parseVariants } from '@aioscope/core';
import { labExperimentSchema, type LabExperimentInput } from '@aioscope/spec';
import { LAB_FLAGS } from '../config/commandFlags.ts';
import { helpText, parseFlags } from '../config/flagTable.ts';

export const LAB_HELP = helpText(LAB_FLAGS);

export type LabArgs =
  | { ok: 'help' }
  | { ok: false; error: string }
  | {
      ok: true;
      input: LabExperimentInput;
      db: string | null;
      allowLab: boolean;
      yes: boolean;
      dataDir: string | null;
    };

export function parseLabArgs(argv: readonly string[]): LabArgs {
  const flags = parseFlags(LAB_FLAGS, argv);
  if (flags.ok !== true) return flags;
  const { values } = flags;
  const variants = parseVariants(values.variants);
  if (typeof variants === 'string') return { ok: false, error: variants };
  const integer = (flag: 'rounds' | 'table-mb' | 'baseline'): number | string =>
    /^\d+$/.test(values[flag]) ? Number(values[flag]) : `--${flag} must be a whole number`;
  const rounds = integer('rounds');
  const tableMb = integer('table-mb');
  const baseline = integer('baseline');
  for (const value of [rounds, tableMb, baseline]) if (typeof value === 'string') return { ok: false, error: value };
  const input = {
    tableMb,
    cacheState: values.cache,
    rounds,
    baseline,
    variants,
    ...(values['direct-io'] === true ? { directIo: true } : {}),
  } as LabExperimentInput;
  const checked = labExperimentSchema.safeParse(input);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { ok: false, error: `${issue?.path.join('.') || 'experiment'}: ${issue?.message ?? 'invalid'}` };
  }
  return {
    ok: true,
    input,
    db: values.db ?? null,
    allowLab: values['allow-lab'] === true,
    yes: values.yes === true,
    dataDir: values['data-dir'] ?? null,
  };
}
