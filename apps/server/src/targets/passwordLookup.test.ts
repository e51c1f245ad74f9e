import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MissingPasswordError,
  lookUpPassword,
  parsePasswordLine,
  passwordFilePath,
  passwordFromFile,
  withPasswordLookup,
} from './passwordLookup.ts';

const PARAMS = { host: 'db1', port: 5433, database: 'orders', user: 'aioscope' };

describe('password file lines', () => {
  it.each([
    ['db1:5433:orders:aioscope:s3cret', ['db1', '5433', 'orders', 'aioscope', 's3cret']],
    ['*:*:*:*:pa:ss', ['*', '*', '*', '*', 'pa:ss']],
    ['db\\:1:5432:d:u:p\\\\w', ['db:1', '5432', 'd', 'u', 'p\\w']],
    ['db1:5432:d:u:p\r', ['db1', '5432', 'd', 'u', 'p']],
  ])('%j → %j', (line, fields) => {
    expect(parsePasswordLine(line)).toEqual(fields);
  });

  it.each(['# db1:5432:d:u:p', '', '   ', 'db1:5432:d:u', 'db1:5432::u:p'])('%j is no entry', (line) => {
    expect(parsePasswordLine(line)).toBeNull();
  });

  it('takes the first matching line, * matching anything, a socket directory as localhost', () => {
    const text = ['other:5433:orders:aioscope:no', 'db1:5433:*:aioscope:first', '*:*:*:*:second'].join('\n');
    expect(passwordFromFile(text, PARAMS)).toBe('first');
    expect(passwordFromFile(text, { ...PARAMS, user: 'app' })).toBe('second');
    expect(passwordFromFile('localhost:5432:d:u:sock', { host: '/var/run/postgresql', database: 'd', user: 'u' })).toBe(
      'sock',
    );
    expect(passwordFromFile('db1:5432:orders:aioscope:x', PARAMS)).toBeNull();
  });

  it('is PGPASSFILE, else ~/.pgpass', () => {
    expect(passwordFilePath({ PGPASSFILE: '/etc/pw' }, '/home/a')).toBe('/etc/pw');
    expect(passwordFilePath({ PGPASSFILE: '' }, '/home/a')).toBe('/home/a/.pgpass');
  });
});

describe('looking up a password', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'aioscope-pgpass-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function passFile(text: string, mode = 0o600): string {
    const file = path.join(dir, 'pgpass');
    writeFileSync(file, text);
    chmodSync(file, mode);
    return file;
  }

  it('prefers PGPASSWORD, then the password file', () => {
    const file = passFile('db1:5433:orders:aioscope:from-file\n');
    expect(lookUpPassword(PARAMS, { PGPASSWORD: 'from-env', PGPASSFILE: file })).toBe('from-env');
    expect(lookUpPassword(PARAMS, { PGPASSFILE: file })).toBe('from-file');
    // Empty is no password, as libpq reads it (PGPASSWORD= in a shell): the file is asked.
    expect(lookUpPassword(PARAMS, { PGPASSWORD: '', PGPASSFILE: file })).toBe('from-file');
    expect(() => lookUpPassword(PARAMS, { PGPASSWORD: '', PGPASSFILE: path.join(dir, 'none') })).toThrow(
      'PGPASSWORD is empty and',
    );
  });

  it('names the connection and every place it looked when there is none', () => {
    const missing = path.join(dir, 'nothing-here');
    const lookUp = () => lookUpPassword(PARAMS, { PGPASSFILE: missing });
    expect(lookUp).toThrow(MissingPasswordError);
    expect(lookUp).toThrow(`aioscope@db1:5433/orders`);
    expect(lookUp).toThrow(`PGPASSWORD is not set and ${missing} does not exist`);
    expect(lookUp).toThrow(/~\/\.pgpass.*PGPASSFILE/);
    expect(() => lookUpPassword(PARAMS, { HOME: dir })).toThrow(`${path.join(dir, '.pgpass')} does not exist`);
  });

  it('says the file has no line for the connection', () => {
    const file = passFile('db1:5432:orders:aioscope:wrong-port\n');
    expect(() => lookUpPassword(PARAMS, { PGPASSFILE: file })).toThrow(`${file} has no line for it`);
  });

  it('ignores a password file others can read, as libpq does, and says so', () => {
    const file = passFile('*:*:*:*:secret\n', 0o644);
    expect(() => lookUpPassword(PARAMS, { PGPASSFILE: file })).toThrow(`chmod 600 ${file}`);
  });

  it('leaves a config that holds a password as it is', () => {
    const config = { host: 'db1', password: 'given' };
    expect(withPasswordLookup(config)).toBe(config);
    expect(typeof withPasswordLookup({ host: 'db1' }).password).toBe('function');
    expect(typeof withPasswordLookup({ host: 'db1', password: '' }).password, 'a URL without one').toBe('function');
  });
});
