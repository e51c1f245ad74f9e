import { parseArgs } from 'node:util';
import { parseVariants } from '@aioscope/core';
import { labExperimentSchema, type LabExperimentInput } from '@aioscope/spec';

export const LAB_HELP = `aioscope lab: the cold-scan drill, from the command line

Usage: npm start -- lab [options]

Options:
  --variants <list>    variants separated by ";", settings in a variant by ",":
                       eic=N (effective_io_concurrency), mic=N (maintenance_io_concurrency),
                       icl=N (io_combine_limit, blocks), io_method=sync|worker|io_uring, io_workers=N
                       default: "eic=1;eic=16;eic=64"
  --cache <state>      cold | shared-buffers-cold | warm (default cold)
  --direct-io          direct I/O on the embedded server: restarts it with PostgreSQL's developer
                       setting debug_io_direct = data for the experiment (and without it afterwards),
                       so every read goes to the device, none to the OS page cache
  --rounds <n>         rounds per variant, interleaved (default 5)
  --table-mb <mb>      lab table size (default 256)
  --baseline <n>       index of the variant ratios are computed against (default 0)
  --db <url>           run on this server instead of the embedded one (needs --allow-lab and --yes)
  --allow-lab          allow the lab on a server given with --db
  --yes                confirm writing to that server (its own schema aioscope_lab, dropped afterwards)
  --data-dir <path>    where the embedded server and the results live (default .aioscope/)
  -h, --help           show this help

Example: npm start -- lab --variants "io_method=sync;io_method=worker" --cache cold --rounds 5
`;

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
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        variants: { type: 'string' },
        cache: { type: 'string' },
        'direct-io': { type: 'boolean' },
        rounds: { type: 'string' },
        'table-mb': { type: 'string' },
        baseline: { type: 'string' },
        db: { type: 'string' },
        'allow-lab': { type: 'boolean' },
        yes: { type: 'boolean' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0] ?? 'invalid arguments' };
  }
  if (values.help === true) return { ok: 'help' };
  const variants = parseVariants(typeof values.variants === 'string' ? values.variants : 'eic=1;eic=16;eic=64');
  if (typeof variants === 'string') return { ok: false, error: variants };
  const integer = (flag: string, fallback: number): number | string => {
    const raw = values[flag];
    if (raw === undefined) return fallback;
    return typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : `--${flag} must be a whole number`;
  };
  const rounds = integer('rounds', 5);
  const tableMb = integer('table-mb', 256);
  const baseline = integer('baseline', 0);
  for (const value of [rounds, tableMb, baseline]) if (typeof value === 'string') return { ok: false, error: value };
  const input = {
    tableMb,
    cacheState: values.cache ?? 'cold',
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
    db: typeof values.db === 'string' ? values.db : null,
    allowLab: values['allow-lab'] === true,
    yes: values.yes === true,
    dataDir: typeof values['data-dir'] === 'string' ? values['data-dir'] : null,
  };
}
