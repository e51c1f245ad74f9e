// Over 250 lines on purpose: the command line's one contract, kept in one file so that a flag is
// added in one place: its line in the help text, its schema with the message a bad value gets, and
// its name in parseConfig's errors. The value rules it uses live apart (recordingLimits, access).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseConnectionString } from 'pg-connection-string';
import { z } from 'zod';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_RAW_RETENTION_MS,
  DEFAULT_ROLLUP_RETENTION_MS,
  parseByteSize,
  parseDuration,
  type Parsed,
} from './recordingLimits.ts';
import { MIN_TOKEN_LENGTH, isLoopbackHost } from '../http/access.ts';

/** Where the repository root is, so `.aioscope/` lands there whatever folder npm runs us from. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Where aioscope keeps its files by default: `.aioscope/` in a checkout (npm start); in the user's
 * home when it runs from an installed package (npx aioscope), whose folder may be npx's cache.
 */
export const DEFAULT_DATA_DIR = existsSync(path.join(REPO_ROOT, 'apps/server/package.json'))
  ? path.join(REPO_ROOT, '.aioscope')
  : path.join(homedir(), '.aioscope');

export const DEFAULT_PORT = 7180;
export const DEFAULT_SAMPLE_RATE_HZ = 20;
export const MIN_SAMPLE_RATE_HZ = 1;
export const MAX_SAMPLE_RATE_HZ = 100;
export const DEFAULT_DEMO_TABLE_MB = 512;
/** --rate-budget: the share of one core sampling may cost a target under --rate auto, in percent. */
export const DEFAULT_RATE_BUDGET_PERCENT = 1;

/** The PG* variables psql reads that say which server to use; any one of them selects it. */
export const PG_TARGET_VARIABLES = ['PGHOST', 'PGHOSTADDR', 'PGPORT', 'PGDATABASE', 'PGUSER'] as const;

export const HELP_TEXT = `aioscope: live view of PostgreSQL asynchronous I/O

Usage: npm start -- [options]          (installed from a package: npx aioscope [options])
       npm start -- lab [options]      the cold-scan drill (see lab --help)
       npm start -- check --db <url>   the settings audit and pre-upgrade check (see check --help)

With no --db and no PG* variables, starts an embedded PostgreSQL 18 with a demo workload.

Options:
  --db <url>            watch this server (postgres://user@host:port/db); runs nothing on it;
                        repeat it to watch several
  --targets <file>      watch the servers a YAML file lists (name, url or host/port/user/
                        database, labels, rate); re-read on SIGHUP and when it changes
  --embedded            use the embedded server even when PG* variables are set
  --wait-for-db         start even when --db is unreachable, and keep retrying (default: exit 2)
  --rate <hz>           fast sampling rate, ${MIN_SAMPLE_RATE_HZ}-${MAX_SAMPLE_RATE_HZ} per second (default ${DEFAULT_SAMPLE_RATE_HZ}), or auto:
                        the highest rate whose cost stays under --rate-budget
  --rate-budget <pct>   what sampling may cost each target under auto, in % of one
                        core (default ${DEFAULT_RATE_BUDGET_PERCENT}; measured from round-trip times)
  --host <address>      address to listen on (default 127.0.0.1)
  --port <port>         port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --no-demo             embedded server without the demo workload
  --demo-table-mb <mb>  size of the demo table (default ${DEFAULT_DEMO_TABLE_MB})
  --data-dir <path>     where aioscope keeps its files (default .aioscope/ in a checkout,
                        ~/.aioscope when installed)
  --token <token>       access token, required when --host is not a loopback address
                        (also AIOSCOPE_TOKEN; at least 16 characters)
  --allow-lab           allow the scan lab on a server given with --db (it creates a table
                        in its own schema aioscope_lab and drops it afterwards)
  --no-record           do not record history (by default every sample is kept under
                        <data dir>/history, for rewinding, replaying and sharing)
  --record-raw <age>    keep every sample this long, e.g. 6h (default 24h)
  --record-rollups <age>  keep per-second roll-ups this long, e.g. 7d (default 30d)
  --record-max <size>   at most this much on disk for history, oldest samples first
                        (default 1GB)
  --log-level <level>   fatal, error, warn, info, debug (default info)
  -h, --help            show this help

Environment: PGHOST, PGPORT, PGDATABASE, PGUSER as psql reads them; the password from PGPASSWORD,
else the password file PGPASSFILE names, else ~/.pgpass (mode 600).
`;

/** What is wrong with a connection URL ("must start with postgres://"), or null. */
export function checkConnectionUrl(text: string): string | null {
  const value = text.trim();
  if (value === '') return 'is empty';
  if (!/^postgres(ql)?:\/\//.test(value)) return 'must start with postgres:// or postgresql://';
  try {
    parseConnectionString(value);
    new URL(value.replace(/^postgres(ql)?:/, 'http:'));
    return null;
  } catch {
    return 'is not a valid connection URL';
  }
}

const connectionStringSchema = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = checkConnectionUrl(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A flag value read by one of recordingLimits' parsers: the number, or its one-line error. */
const limitSchema = (parse: (text: string) => Parsed) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    if (typeof value === 'number') return value;
    const parsed = parse(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  });

export const configSchema = z
  .object({
    target: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('embedded') }),
      z.object({ kind: z.literal('url'), connectionString: connectionStringSchema }),
      z.object({ kind: z.literal('urls'), connectionStrings: z.array(connectionStringSchema).min(2) }),
      z.object({ kind: z.literal('environment') }),
      z.object({ kind: z.literal('file'), path: z.string().min(1, 'is empty') }),
    ]),
    host: z.string().trim().min(1, 'must not be empty'),
    port: z.coerce
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(0)
      .max(65535, 'must be 0-65535'),
    sampleRateHz: z.union([z.number(), z.string()]).transform((value, ctx): number | 'auto' => {
      if (value === 'auto') return 'auto';
      const hz = Number(value);
      const problem = Number.isNaN(hz)
        ? 'must be a number or auto'
        : hz < MIN_SAMPLE_RATE_HZ
          ? `must be at least ${MIN_SAMPLE_RATE_HZ}`
          : hz > MAX_SAMPLE_RATE_HZ
            ? `must be at most ${MAX_SAMPLE_RATE_HZ}`
            : null;
      if (problem === null) return hz;
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }),
    rateBudgetPercent: z.coerce
      .number({ error: 'must be a number (percent of one core)' })
      .min(0.01, 'must be at least 0.01')
      .max(100, 'must be at most 100'),
    demoWorkload: z.boolean(),
    demoTableMb: z.coerce
      .number()
      .int('must be a whole number')
      .min(16, 'must be at least 16')
      .max(8192, 'must be at most 8192'),
    dataDir: z.string().min(1),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug']),
    allowLab: z.boolean(),
    waitForDb: z.boolean(),
    token: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    record: z
      .object({
        enabled: z.boolean(),
        rawMs: limitSchema(parseDuration),
        rollupMs: limitSchema(parseDuration),
        maxBytes: limitSchema(parseByteSize),
      })
      .refine((record) => record.rollupMs >= record.rawMs, {
        path: ['rollupMs'],
        message: 'must be at least --record-raw: roll-ups are what is left of raw samples',
      }),
  })
  .strict()
  .refine((config) => isLoopbackHost(config.host) || config.token !== undefined, {
    path: ['host'],
    message:
      'is not a loopback address: the dashboard would be reachable from other machines. Set --token or AIOSCOPE_TOKEN (at least 16 characters)',
  });

export type AppConfig = z.infer<typeof configSchema>;

export type ConfigResult = { ok: true; config: AppConfig } | { ok: false; error: string } | { ok: 'help' };

const FLAG_NAMES: Record<string, string> = {
  'target.connectionString': '--db',
  'target.connectionStrings': '--db',
  'target.path': '--targets',
  rateBudgetPercent: '--rate-budget',
  host: '--host',
  port: '--port',
  sampleRateHz: '--rate',
  demoTableMb: '--demo-table-mb',
  dataDir: '--data-dir',
  logLevel: '--log-level',
  token: '--token',
  'record.rawMs': '--record-raw',
  'record.rollupMs': '--record-rollups',
  'record.maxBytes': '--record-max',
};

/** Reads flags and environment once. Never throws: a bad input is a one-line error to print. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ConfigResult {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      allowNegative: true,
      options: {
        db: { type: 'string', multiple: true },
        targets: { type: 'string' },
        'rate-budget': { type: 'string' },
        embedded: { type: 'boolean' },
        rate: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        demo: { type: 'boolean' },
        'demo-table-mb': { type: 'string' },
        'data-dir': { type: 'string' },
        'log-level': { type: 'string' },
        'allow-lab': { type: 'boolean' },
        'wait-for-db': { type: 'boolean' },
        token: { type: 'string' },
        record: { type: 'boolean' },
        'record-raw': { type: 'string' },
        'record-rollups': { type: 'string' },
        'record-max': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0] ?? 'invalid arguments' };
  }
  if (values.help === true) return { ok: 'help' };
  const dbs = Array.isArray(values.db) ? values.db : [];
  const targetsFile = typeof values.targets === 'string' ? values.targets : undefined;
  if (dbs.length > 0 && values.embedded === true) {
    return { ok: false, error: '--db and --embedded cannot be used together' };
  }
  if (targetsFile !== undefined && (dbs.length > 0 || values.embedded === true)) {
    return { ok: false, error: `--targets cannot be used with ${dbs.length > 0 ? '--db' : '--embedded'}` };
  }

  const usesEnvironment = PG_TARGET_VARIABLES.some((name) => (env[name] ?? '') !== '');
  const target =
    targetsFile !== undefined
      ? { kind: 'file' as const, path: targetsFile }
      : dbs.length > 1
        ? { kind: 'urls' as const, connectionStrings: dbs }
        : dbs[0] !== undefined
          ? { kind: 'url' as const, connectionString: dbs[0] }
          : values.embedded !== true && usesEnvironment
            ? { kind: 'environment' as const }
            : { kind: 'embedded' as const };

  const candidate = {
    target,
    host: values.host ?? '127.0.0.1',
    port: values.port ?? DEFAULT_PORT,
    sampleRateHz: values.rate ?? DEFAULT_SAMPLE_RATE_HZ,
    rateBudgetPercent: values['rate-budget'] ?? DEFAULT_RATE_BUDGET_PERCENT,
    demoWorkload: values.demo ?? true,
    demoTableMb: values['demo-table-mb'] ?? DEFAULT_DEMO_TABLE_MB,
    dataDir: path.resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : DEFAULT_DATA_DIR),
    logLevel: values['log-level'] ?? 'info',
    allowLab: values['allow-lab'] === true,
    waitForDb: values['wait-for-db'] === true,
    ...(typeof values.token === 'string' || (env.AIOSCOPE_TOKEN ?? '') !== ''
      ? { token: typeof values.token === 'string' ? values.token : env.AIOSCOPE_TOKEN }
      : {}),
    record: {
      enabled: values.record !== false,
      rawMs: values['record-raw'] ?? DEFAULT_RAW_RETENTION_MS,
      rollupMs: values['record-rollups'] ?? DEFAULT_ROLLUP_RETENTION_MS,
      maxBytes: values['record-max'] ?? DEFAULT_MAX_BYTES,
    },
  };
  const parsed = configSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An issue on the nth --db is reported as --db's (path target.connectionStrings.n).
    const key = issue?.path.filter((part) => typeof part === 'string').join('.') ?? '';
    const flag = FLAG_NAMES[key] ?? key;
    return { ok: false, error: `${flag} ${issue?.message ?? 'is invalid'}` };
  }
  return { ok: true, config: parsed.data };
}
