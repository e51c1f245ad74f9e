// The flags of every command in one table: a flag, its default and its help line are written once
// here, and each command's --help is generated from it (flagTable.ts). What a value must be is
// checked where it is used: config.ts (start), commands/open.ts, commands/labArgs.ts, commands/checkArgs.ts.
import { DEFAULT_LAB_VARIANTS } from '@aioscope/core';
import { RECORDING_EXTENSION } from '@aioscope/spec';
import { MIN_TOKEN_LENGTH } from '../http/access.ts';
import { HELP_FLAG, type CommandFlags, type Flag, type FlagTable } from './flagTable.ts';
import { DEFAULT_MAX_SIZE, DEFAULT_RAW_RETENTION, DEFAULT_ROLLUP_RETENTION } from './recordingLimits.ts';

export const DEFAULT_PORT = 7180;
/** `open` listens beside a live aioscope on its default port, so "open the file a colleague sent" just works. */
export const OPEN_DEFAULT_PORT = DEFAULT_PORT + 1;
export const DEFAULT_SAMPLE_RATE_HZ = 20;
export const MIN_SAMPLE_RATE_HZ = 1;
export const MAX_SAMPLE_RATE_HZ = 100;
export const DEFAULT_DEMO_TABLE_MB = 512;
/** --rate-budget: the share of one core sampling may cost a target under --rate auto, in percent. */
export const DEFAULT_RATE_BUDGET_PERCENT = 1;

const LOOPBACK = '127.0.0.1';

// Flags more than one command has, defined once.
const hostFlag = { type: 'string', value: '<address>', default: LOOPBACK, help: 'address to listen on' } as const;
const portFlag = (port: number) =>
  ({ type: 'string', value: '<port>', default: String(port), help: 'port to listen on; 0 picks a free one' }) as const;
const tokenFlag = {
  type: 'string',
  value: '<token>',
  help: `access token, required when --host is not a loopback address (also AIOSCOPE_TOKEN; at least ${MIN_TOKEN_LENGTH} characters)`,
} as const;
const logLevelFlag = (level: string) =>
  ({ type: 'string', value: '<level>', default: level, help: 'fatal, error, warn, info, debug' }) as const;
const dataDirFlag = (help: string) => ({ type: 'string', value: '<path>', help }) as const satisfies Flag;
const allowLabFlag = (help: string) => ({ type: 'boolean', help }) as const satisfies Flag;

export const START_FLAGS = {
  usage: `aioscope: live view of PostgreSQL asynchronous I/O

Usage: npm start -- [options]          (installed from a package: npx aioscope [options])
       npm start -- lab [options]      the cold-scan drill (see lab --help)
       npm start -- open FILE          a recording file, with no database (see open --help)
       npm start -- check --db <url>   the settings audit and pre-upgrade check (see check --help)

With no --db and no PG* variables, starts an embedded PostgreSQL 18 with a demo workload.`,
  footer: `Environment: PGHOST, PGPORT, PGDATABASE, PGUSER as psql reads them; the password from PGPASSWORD,
else the password file PGPASSFILE names, else ~/.pgpass (mode 600).`,
  negatable: true,
  flags: {
    db: {
      type: 'string',
      value: '<url>',
      multiple: true,
      help: 'watch this server (postgres://user@host:port/db); runs nothing on it; repeat it to watch several',
    },
    targets: {
      type: 'string',
      value: '<file>',
      help: 'watch the servers a YAML file lists (name, url or host/port/user/database, labels, rate); re-read on SIGHUP and when it changes',
    },
    embedded: { type: 'boolean', help: 'use the embedded server even when PG* variables are set' },
    'wait-for-db': {
      type: 'boolean',
      help: 'start even when --db is unreachable, and keep retrying (default: exit 2)',
    },
    rate: {
      type: 'string',
      value: '<hz>',
      default: String(DEFAULT_SAMPLE_RATE_HZ),
      help: `fast sampling rate, ${MIN_SAMPLE_RATE_HZ}-${MAX_SAMPLE_RATE_HZ} per second, or auto: the highest rate whose cost stays under --rate-budget`,
    },
    'rate-budget': {
      type: 'string',
      value: '<pct>',
      default: String(DEFAULT_RATE_BUDGET_PERCENT),
      help: 'what sampling may cost each target under auto, in % of one core, measured from round-trip times',
    },
    host: hostFlag,
    port: portFlag(DEFAULT_PORT),
    demo: { type: 'boolean', shownAs: '--no-demo', help: 'embedded server without the demo workload' },
    'demo-table-mb': {
      type: 'string',
      value: '<mb>',
      default: String(DEFAULT_DEMO_TABLE_MB),
      help: 'size of the demo table',
    },
    'data-dir': dataDirFlag(
      'where aioscope keeps its files (default .aioscope/ in a checkout, ~/.aioscope when installed)',
    ),
    token: tokenFlag,
    'metrics-token': {
      type: 'string',
      value: '<token>',
      help: `a scraper's own token: GET /metrics also answers "Authorization: Bearer <token>", whatever guards the rest (also AIOSCOPE_METRICS_TOKEN; at least ${MIN_TOKEN_LENGTH} characters; for Prometheus behind --auth-proxy-header)`,
    },
    'auth-proxy-header': {
      type: 'string',
      value: '<name>',
      help: "behind a team's SSO proxy (oauth2-proxy, nginx auth_request): the request header naming the user, believed only from a --trusted-proxy; replaces --token",
    },
    'trusted-proxy': {
      type: 'string',
      value: '<cidr>',
      multiple: true,
      help: 'addresses the auth proxy connects from (10.0.0.0/8, ::1/128); repeat it or separate with commas; the header from any other address is refused',
    },
    operators: {
      type: 'string',
      value: '<names>',
      multiple: true,
      help: 'users of --auth-proxy-header who may start lab runs and races (comma-separated); everyone else views',
    },
    'allow-lab': allowLabFlag(
      'allow the scan lab on a server given with --db (it creates a table in its own schema aioscope_lab and drops it afterwards)',
    ),
    record: {
      type: 'boolean',
      shownAs: '--no-record',
      help: 'do not record history (by default every sample is kept under history/ in the data folder, for rewinding, replaying and sharing)',
    },
    store: {
      type: 'string',
      value: '<url>',
      help: 'keep history in this PostgreSQL database (postgres://user@host/db) instead of the data folder; aioscope processes started with the same --store and --targets share the targets, each sampled by one',
    },
    adapter: {
      type: 'string',
      value: '<url>',
      help: 'with --store: relay the live view between replicas through this Redis (redis://host:port), so any replica serves any target live',
    },
    'replica-name': {
      type: 'string',
      value: '<name>',
      help: "with --adapter: this replica's name (a-z, 0-9, -), told to viewers so a load balancer routes each to its target's replica by ?replica=NAME (deploy/team/nginx.conf)",
    },
    'record-raw': {
      type: 'string',
      value: '<age>',
      default: DEFAULT_RAW_RETENTION,
      help: 'keep every sample this long, e.g. 6h',
    },
    'record-rollups': {
      type: 'string',
      value: '<age>',
      default: DEFAULT_ROLLUP_RETENTION,
      help: 'keep per-second roll-ups this long, e.g. 7d',
    },
    'record-max': {
      type: 'string',
      value: '<size>',
      default: DEFAULT_MAX_SIZE,
      help: 'at most this much on disk for history, oldest samples first',
    },
    'log-level': logLevelFlag('info'),
    help: HELP_FLAG,
  },
} as const satisfies CommandFlags<FlagTable>;

export const OPEN_FLAGS = {
  usage: `aioscope open: show a recording file, with no database at all

Usage: npm start -- open FILE [options]     (installed: npx aioscope open FILE)

FILE is a recording exported from aioscope (*${RECORDING_EXTENSION}). It is read and checked whole
first: a truncated, corrupted, foreign or newer-format file is refused (exit 2) and nothing is
served. No PostgreSQL is started or contacted, nothing is recorded and nothing is written.`,
  positionals: true,
  flags: {
    host: hostFlag,
    port: portFlag(OPEN_DEFAULT_PORT),
    token: tokenFlag,
    'log-level': logLevelFlag('warn'),
    help: HELP_FLAG,
  },
} as const satisfies CommandFlags<FlagTable>;

export const LAB_FLAGS = {
  usage: `aioscope lab: the cold-scan drill, from the command line

Usage: npm start -- lab [options]`,
  footer: 'Example: npm start -- lab --variants "io_method=sync;io_method=worker" --cache cold --rounds 5',
  flags: {
    variants: {
      type: 'string',
      value: '<list>',
      default: DEFAULT_LAB_VARIANTS,
      help:
        'variants separated by ";", settings in a variant by ",": eic=N (effective_io_concurrency), ' +
        'mic=N (maintenance_io_concurrency), icl=N (io_combine_limit, blocks), io_method=sync|worker|io_uring, io_workers=N',
    },
    cache: { type: 'string', value: '<state>', default: 'cold', help: 'cold | shared-buffers-cold | warm' },
    'direct-io': {
      type: 'boolean',
      help:
        "direct I/O on the embedded server: restarts it with PostgreSQL's developer setting debug_io_direct = data " +
        'for the experiment (and without it afterwards), so every read goes to the device, none to the OS page cache',
    },
    rounds: { type: 'string', value: '<n>', default: '5', help: 'rounds per variant, interleaved' },
    'table-mb': { type: 'string', value: '<mb>', default: '256', help: 'lab table size' },
    baseline: {
      type: 'string',
      value: '<n>',
      default: '0',
      help: 'index of the variant ratios are computed against',
    },
    db: {
      type: 'string',
      value: '<url>',
      help: 'run on this server instead of the embedded one (needs --allow-lab and --yes)',
    },
    'allow-lab': allowLabFlag('allow the lab on a server given with --db'),
    yes: {
      type: 'boolean',
      help: 'confirm writing to that server (its own schema aioscope_lab, dropped afterwards)',
    },
    'data-dir': dataDirFlag('where the embedded server and the results live (default .aioscope/)'),
    help: HELP_FLAG,
  },
} as const satisfies CommandFlags<FlagTable>;

export const CHECK_FLAGS = {
  usage: `aioscope check: the settings audit and pre-upgrade check of one server, for scripts and CI

Usage: npm start -- check --db <url> [options]     (installed: npx aioscope check --db <url>)

Connects once, reads pg_settings (source, file and line), pg_tablespace, pg_db_role_setting and,
as a superuser, pg_config, then says for this server's settings what the next major version will
do with them and what to do before the upgrade (PostgreSQL 16 and 17: what 18 changes; 18: what 19
changes), with the current checks of 18 and 19. It writes nothing. A member of pg_monitor sees
every setting's file and line; any role can run it.`,
  footer: `Exit codes:
  0  pass: nothing to change
  1  warnings: at least one finding says what to change
  2  bad input: wrong flags
  3  could not check: the server cannot be reached, is older than 16, or refused a query

Example: npm start -- check --db postgres://monitor@db1/postgres --target-version 18`,
  flags: {
    db: {
      type: 'string',
      value: '<url>',
      help: 'the server, postgres:// or postgresql:// (password: PGPASSWORD, PGPASSFILE or ~/.pgpass when the URL has none)',
    },
    'target-version': {
      type: 'string',
      value: '<n>',
      help: '18 or 19: the version to check for (default: the next one that changes I/O: 18 from 16 and 17, 19 from 18)',
    },
    json: { type: 'boolean', help: 'print the report as JSON (one object) instead of a table' },
    help: HELP_FLAG,
  },
} as const satisfies CommandFlags<FlagTable>;
