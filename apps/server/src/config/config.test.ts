import { describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLE_RATE_HZ } from './commandFlags.ts';
import { parseConfig } from './config.ts';

function ok(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const result = parseConfig(argv, env);
  if (result.ok !== true) throw new Error(`expected a config, got ${JSON.stringify(result)}`);
  return result.config;
}

function error(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const result = parseConfig(argv, env);
  if (result.ok !== false) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('parseConfig', () => {
  it('defaults to the embedded server on loopback at 20 Hz', () => {
    const config = ok([]);
    expect(config.target).toEqual({ kind: 'embedded' });
    expect(config.host).toBe('127.0.0.1');
    expect(config.sampleRateHz).toBe(DEFAULT_SAMPLE_RATE_HZ);
    expect(config.demoWorkload).toBe(true);
  });

  it('watches --db instead of the embedded server', () => {
    expect(ok(['--db', 'postgres://app@db.example:5433/prod']).target).toEqual({
      kind: 'url',
      connectionString: 'postgres://app@db.example:5433/prod',
    });
  });

  it('watches the server the PG* variables name, unless --embedded', () => {
    expect(ok([], { PGHOST: 'db1' }).target).toEqual({ kind: 'environment' });
    expect(ok(['--embedded'], { PGHOST: 'db1' }).target).toEqual({ kind: 'embedded' });
    expect(ok([], { PGPASSWORD: 'x' }).target).toEqual({ kind: 'embedded' });
  });

  it.each([
    [['--db', 'mysql://x'], '--db must start with postgres:// or postgresql://'],
    [['--db', 'postgres://us er@[bad'], '--db is not a valid connection URL'],
    [['--db', ''], '--db is empty'],
    [['--db', 'postgres://a@b/c', '--db', 'postgres://a@b/c '], '--db names the same server twice'],
    [['--data-dir', ''], '--data-dir is empty'],
    [['--port=-1'], '--port must be 0-65535'],
    [['--demo-table-mb', 'abc'], '--demo-table-mb must be a number (MB)'],
    [['--db', 'postgres://a@b/c?sslmode=verify-ca'], '--db has sslmode=verify-ca without sslrootcert=FILE'],
    [
      ['--db', 'postgres://a@b/c?sslrootcert=/nonexistent/ca.pem'],
      '--db names /nonexistent/ca.pem, which cannot be read (ENOENT)',
    ],
    [['--rate', '0'], '--rate must be at least 1'],
    [['--rate', '101'], '--rate must be at most 100'],
    [['--rate', 'fast'], '--rate'],
    [['--port', '70000'], '--port must be 0-65535'],
    [['--port', '1.5'], '--port must be a whole number'],
    [['--demo-table-mb', '999999'], '--demo-table-mb must be at most 8192'],
    [['--log-level', 'loud'], '--log-level'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--db', 'postgres://a@b/c', '--embedded'], '--db and --embedded cannot be used together'],
  ])('rejects %j with a one-line message', (argv, expected) => {
    const message = error(argv);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it.each([
    'postgresql://%2Fvar%2Frun%2Fpostgresql/postgres',
    'postgres://monitor:secret@%2Ftmp%2Fpg:5433/app',
    'postgres://monitor@localhost/app?host=/var/run/postgresql',
  ])('accepts a Unix-socket directory as libpq writes it in a URL: %s', (url) => {
    const config = ok(['--db', url]);
    expect(config.target).toEqual({ kind: 'url', connectionString: url });
  });

  it('still refuses a socket-looking host that is not a URL', () => {
    expect(error(['--db', 'postgres://%2Ftmp%2Fpg:port/app'])).toContain('--db is not a valid connection URL');
  });

  it('accepts --no-demo and a rate inside the range', () => {
    const config = ok(['--no-demo', '--rate', '100']);
    expect(config.demoWorkload).toBe(false);
    expect(config.sampleRateHz).toBe(100);
  });

  it('refuses to listen beyond loopback without a token', () => {
    expect(error(['--host', '0.0.0.0'])).toMatch(/--host is not a loopback address: .* Set --token or AIOSCOPE_TOKEN/);
    expect(error(['--host', '0.0.0.0', '--token', 'short'])).toBe('--token must be at least 16 characters');
    expect(ok(['--host', '0.0.0.0', '--token', '0123456789abcdef']).token).toBe('0123456789abcdef');
    expect(ok(['--host', '0.0.0.0'], { AIOSCOPE_TOKEN: 'fedcba9876543210' }).token).toBe('fedcba9876543210');
    expect(ok(['--host', '127.0.0.2']).token).toBeUndefined();
    expect(ok(['--host', '::1']).host).toBe('::1');
  });

  it('reads a scraper’s --metrics-token (or AIOSCOPE_METRICS_TOKEN), as long as a token must be, and never counts it as access', () => {
    expect(error(['--metrics-token', 'short'])).toBe('--metrics-token must be at least 16 characters');
    expect(ok(['--metrics-token', '0123456789abcdef']).metricsToken).toBe('0123456789abcdef');
    expect(ok([], { AIOSCOPE_METRICS_TOKEN: 'fedcba9876543210' }).metricsToken).toBe('fedcba9876543210');
    expect(ok([], { AIOSCOPE_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(error(['--host', '0.0.0.0', '--metrics-token', '0123456789abcdef'])).toMatch(
      /--host is not a loopback address/,
    );
  });

  it('answers --help', () => {
    expect(parseConfig(['--help'], {})).toEqual({ ok: 'help' });
  });

  it('records by default with the laptop-sized retention, and not with --no-record', () => {
    expect(ok([]).record).toEqual({
      enabled: true,
      rawMs: 24 * 3_600_000,
      rollupMs: 30 * 86_400_000,
      maxBytes: 1024 ** 3,
      store: null,
    });
    expect(ok(['--no-record']).record.enabled).toBe(false);
  });

  it('reads --record-raw, --record-rollups and --record-max', () => {
    expect(ok(['--record-raw', '6h', '--record-rollups', '7d', '--record-max', '500MB']).record).toEqual({
      enabled: true,
      rawMs: 6 * 3_600_000,
      rollupMs: 7 * 86_400_000,
      maxBytes: 500 * 1024 ** 2,
      store: null,
    });
  });

  it('keeps history in a shared PostgreSQL store with --store', () => {
    expect(ok(['--store', 'postgres://aioscope@db.internal:5432/history']).record.store).toBe(
      'postgres://aioscope@db.internal:5432/history',
    );
    expect(ok(['--store', 'postgresql://h/db']).record.store).toBe('postgresql://h/db');
  });

  it.each([
    [['--store', 'mysql://h/db'], '--store must be a PostgreSQL URL: postgres://user@host:port/database'],
    [['--store', 'postgres://us er@[bad'], '--store must be a PostgreSQL URL'],
    [['--store', 'postgres://h/db', '--no-record'], '--store keeps history, so it cannot be used with --no-record'],
  ])('rejects the store %j with a one-line message', (argv, expected) => {
    const message = error(argv);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it('relays the live view through a Redis given with --adapter, only beside --store', () => {
    expect(ok(['--store', 'postgres://h/db', '--adapter', 'redis://127.0.0.1:6379']).adapter).toBe(
      'redis://127.0.0.1:6379',
    );
    expect(ok([]).adapter).toBeNull();
  });

  it.each([
    [['--store', 'postgres://h/db', '--adapter', 'http://h:6379'], '--adapter must be a Redis URL: redis://host:port'],
    [['--store', 'postgres://h/db', '--adapter', 'redis://[bad'], '--adapter must be a Redis URL'],
    [['--adapter', 'redis://h:6379'], '--adapter needs --store'],
  ])('rejects the adapter %j with a one-line message', (argv, expected) => {
    const message = error(argv);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it.each([
    [['--record-raw', '24'], '--record-raw "24" is not a duration: use a number and s, m, h or d, e.g. 24h or 30d'],
    [['--record-raw', '10s'], '--record-raw "10s" is too short: at least 1m'],
    [['--record-rollups', 'forever'], '--record-rollups "forever" is not a duration'],
    [['--record-max', '1G'], '--record-max "1G" is not a size: use a number and B, kB, MB, GB or TB, e.g. 1GB'],
    [['--record-max', '1MB'], '--record-max "1MB" is too small: at least 16MB'],
    [['--record-raw', '48h', '--record-rollups', '1d'], '--record-rollups must be at least --record-raw'],
  ])('rejects bad recording limits %j with a one-line message', (argv, expected) => {
    const message = error(argv);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it('watches several servers given with --db repeated, or a targets file', () => {
    expect(ok(['--db', 'postgres://a@db1/x', '--db', 'postgres://a@db2/x']).target).toEqual({
      kind: 'urls',
      connectionStrings: ['postgres://a@db1/x', 'postgres://a@db2/x'],
    });
    expect(ok(['--targets', 'fleet.yml'], { PGHOST: 'db1' }).target).toEqual({ kind: 'file', path: 'fleet.yml' });
  });

  it.each([
    [['--db', 'postgres://a@db1/x', '--db', 'mysql://b'], '--db must start with postgres:// or postgresql://'],
    [['--targets', 'fleet.yml', '--db', 'postgres://a@db1/x'], '--targets cannot be used with --db'],
    [['--targets', 'fleet.yml', '--embedded'], '--targets cannot be used with --embedded'],
    [['--rate', 'fast'], '--rate must be a number or auto'],
    [['--rate-budget', '0'], '--rate-budget must be at least 0.01'],
  ])('rejects %j with a one-line message', (argv, expected) => {
    expect(error(argv)).toBe(expected);
  });

  it('takes --rate auto with a cost budget in percent of one core', () => {
    const config = ok(['--rate', 'auto', '--rate-budget', '2.5']);
    expect(config.sampleRateHz).toBe('auto');
    expect(config.rateBudgetPercent).toBe(2.5);
    expect(ok([]).rateBudgetPercent).toBe(1);
  });
});
