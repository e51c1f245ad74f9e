// The configuration of `start`: its flags (read by the table in commandFlags.ts, which also writes
// their help), then one zod schema with the message each bad value gets, and each schema key's flag
// name for those messages. The value rules it uses live apart (recordingLimits, access).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { replicaNameSchema } from '@aioscope/spec';
import { MIN_TOKEN_LENGTH, isLoopbackHost } from '../http/access.ts';
import { clientConfigFromUrl } from '../postgres/libpqSsl.ts';
import { authProxyConfigSchema, readAccessFlags } from './accessConfig.ts';
import { MAX_SAMPLE_RATE_HZ, MIN_SAMPLE_RATE_HZ, START_FLAGS } from './commandFlags.ts';
import { helpText, parseFlags } from './flagTable.ts';
import { parseByteSize, parseDuration, type Parsed } from './recordingLimits.ts';

/** Where the repository root is, so `.aioscope/` lands there whatever folder npm runs us from. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Where aioscope keeps its files by default: `.aioscope/` in a checkout (npm start); in the user's
 * home when it runs from an installed package (npx aioscope), whose folder may be npx's cache.
 */
export const DEFAULT_DATA_DIR = existsSync(path.join(REPO_ROOT, 'apps/server/package.json'))
  ? path.join(REPO_ROOT, '.aioscope')
  : path.join(homedir(), '.aioscope');

/** The PG* variables psql reads that say which server to use; any one of them selects it. */
export const PG_TARGET_VARIABLES = ['PGHOST', 'PGHOSTADDR', 'PGPORT', 'PGDATABASE', 'PGUSER'] as const;

export const HELP_TEXT = helpText(START_FLAGS);

/**
 * A Unix-socket directory given as the URL's host, percent-encoded as libpq documents it
 * (`postgresql://%2Fvar%2Frun%2Fpostgresql/db`). node-postgres reads it as a socket; the WHATWG
 * parser below refuses a host with a slash, so for that check it stands in as `localhost`.
 */
const SOCKET_HOST = /^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)%2F[^:/?#]*/i;

/** What is wrong with a connection URL ("must start with postgres://"), or null. */
export function checkConnectionUrl(text: string): string | null {
  const value = text.trim();
  if (value === '') return 'is empty';
  if (!/^postgres(ql)?:\/\//.test(value)) return 'must start with postgres:// or postgresql://';
  try {
    new URL(value.replace(SOCKET_HOST, '$1localhost').replace(/^postgres(ql)?:/, 'http:'));
  } catch {
    return 'is not a valid connection URL';
  }
  try {
    // As it is used: TLS files named in it are read, and verify-ca needs the CA (libpqSsl.ts).
    clientConfigFromUrl(value, {});
    return null;
  } catch (error) {
    return urlSettingProblem(error);
  }
}

/** Why the settings of a well-formed URL cannot be used: a TLS file unreadable, verify-ca without its CA. */
function urlSettingProblem(error: unknown): string {
  const { code, path: file, message } = error as NodeJS.ErrnoException;
  if (code !== undefined && file !== undefined) return `names ${file}, which cannot be read (${code})`;
  if (/sslrootcert/.test(message ?? ''))
    return 'has sslmode=verify-ca without sslrootcert=FILE, the CA to check the server against (or use verify-full)';
  return 'is not a valid connection URL';
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
      .min(0, 'must be 0-65535')
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
      .number({ error: 'must be a number (MB)' })
      .int('must be a whole number')
      .min(16, 'must be at least 16')
      .max(8192, 'must be at most 8192'),
    dataDir: z.string().min(1, 'is empty'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug']),
    allowLab: z.boolean(),
    waitForDb: z.boolean(),
    token: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    authProxy: authProxyConfigSchema,
    /** --metrics-token: a bearer that opens GET /metrics alone (a scraper's, apart from the users'). */
    metricsToken: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    /** --adapter: the Redis that relays live events between replicas (live/redisAdapter.ts); null: none. */
    adapter: z
      .string()
      .refine((url) => REDIS_URL.test(url) && URL.canParse(url), { message: 'must be a Redis URL: redis://host:port' })
      .nullable(),
    /** --replica-name: what viewers are told to reconnect with (?replica=NAME); null: unnamed. */
    replicaName: replicaNameSchema.nullable(),
    record: z
      .object({
        enabled: z.boolean(),
        rawMs: limitSchema(parseDuration),
        rollupMs: limitSchema(parseDuration),
        maxBytes: limitSchema(parseByteSize),
        /** --store: the shared PostgreSQL store; null keeps history in the data folder (DuckDB). */
        store: z
          .string()
          .refine((url) => STORE_URL.test(url) && URL.canParse(url), {
            message: 'must be a PostgreSQL URL: postgres://user@host:port/database',
          })
          .nullable(),
      })
      .refine((record) => record.enabled || record.store === null, {
        path: ['store'],
        message: 'keeps history, so it cannot be used with --no-record',
      })
      .refine((record) => record.rollupMs >= record.rawMs, {
        path: ['rollupMs'],
        message: 'must be at least --record-raw: roll-ups are what is left of raw samples',
      }),
  })
  .strict()
  .refine((config) => config.adapter === null || config.record.store !== null, {
    path: ['adapter'],
    message: 'needs --store: only replicas sharing a store share targets to relay',
  })
  .refine((config) => config.replicaName === null || config.adapter !== null, {
    path: ['replicaName'],
    message: 'needs --adapter: a name routes viewers between replicas that relay the live view',
  })
  .refine((config) => isLoopbackHost(config.host) || config.token !== undefined || config.authProxy !== null, {
    path: ['host'],
    message:
      'is not a loopback address: the dashboard would be reachable from other machines. Set --token or AIOSCOPE_TOKEN (at least 16 characters), or --auth-proxy-header',
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
  metricsToken: '--metrics-token',
  'record.rawMs': '--record-raw',
  'record.rollupMs': '--record-rollups',
  'record.maxBytes': '--record-max',
  'record.store': '--store',
  adapter: '--adapter',
  replicaName: '--replica-name',
};

const STORE_URL = /^postgres(ql)?:\/\//;
const REDIS_URL = /^rediss?:\/\//;

/** Reads flags and environment once. Never throws: a bad input is a one-line error to print. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ConfigResult {
  const flags = parseFlags(START_FLAGS, argv);
  if (flags.ok !== true) return flags;
  const { values } = flags;
  const dbs = values.db ?? [];
  const targetsFile = values.targets;
  if (new Set(dbs.map((db) => db.trim())).size < dbs.length) {
    return { ok: false, error: '--db names the same server twice: each is watched once' };
  }
  if (dbs.length > 0 && values.embedded === true) {
    return { ok: false, error: '--db and --embedded cannot be used together' };
  }
  if (targetsFile !== undefined && (dbs.length > 0 || values.embedded === true)) {
    return { ok: false, error: `--targets cannot be used with ${dbs.length > 0 ? '--db' : '--embedded'}` };
  }

  const tokenGiven = values.token !== undefined || (env.AIOSCOPE_TOKEN ?? '') !== '';
  const access = readAccessFlags({
    header: values['auth-proxy-header'],
    trustedProxies: values['trusted-proxy'] ?? [],
    operators: values.operators ?? [],
    tokenGiven,
  });
  if (!access.ok) return access;
  const metricsToken =
    values['metrics-token'] ?? ((env.AIOSCOPE_METRICS_TOKEN ?? '') !== '' ? env.AIOSCOPE_METRICS_TOKEN : undefined);

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
    host: values.host,
    port: values.port,
    sampleRateHz: values.rate,
    rateBudgetPercent: values['rate-budget'],
    demoWorkload: values.demo ?? true,
    demoTableMb: values['demo-table-mb'],
    // Not resolved when empty: path.resolve('') is the current folder, which was not asked for.
    dataDir: values['data-dir']?.trim() === '' ? '' : path.resolve(values['data-dir'] ?? DEFAULT_DATA_DIR),
    logLevel: values['log-level'],
    allowLab: values['allow-lab'] === true,
    waitForDb: values['wait-for-db'] === true,
    ...(tokenGiven ? { token: values.token ?? env.AIOSCOPE_TOKEN } : {}),
    authProxy: access.authProxy,
    ...(metricsToken === undefined ? {} : { metricsToken }),
    adapter: values.adapter ?? null,
    replicaName: values['replica-name'] ?? null,
    record: {
      enabled: values.record !== false,
      rawMs: values['record-raw'],
      rollupMs: values['record-rollups'],
      maxBytes: values['record-max'],
      store: values.store ?? null,
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
