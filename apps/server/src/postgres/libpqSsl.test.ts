import { describe, expect, it } from 'vitest';
import { clientConfigFromUrl, withSslFromEnvironment } from './libpqSsl.ts';

const URL = 'postgres://monitor@db1:5432/postgres';

describe('connection settings read as psql reads them', () => {
  it('sslmode=require encrypts without checking the certificate, as in libpq', () => {
    expect(clientConfigFromUrl(`${URL}?sslmode=require`, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(clientConfigFromUrl(`${URL}?sslmode=prefer`, {}).ssl).toEqual({ rejectUnauthorized: false });
  });

  it('verify-full checks the certificate and its name; disable turns TLS off', () => {
    expect(clientConfigFromUrl(`${URL}?sslmode=verify-full`, {}).ssl).toEqual({});
    expect(clientConfigFromUrl(`${URL}?sslmode=disable`, {}).ssl).toBe(false);
  });

  it('verify-ca without the CA to verify against is refused, as it would check nothing', () => {
    expect(() => clientConfigFromUrl(`${URL}?sslmode=verify-ca`, {})).toThrow(/sslrootcert/);
  });

  it('keeps the rest of the URL and leaves a URL that chose uselibpqcompat alone', () => {
    const config = clientConfigFromUrl(`${URL}?uselibpqcompat=false&sslmode=require`, {});
    expect(config).toMatchObject({ host: 'db1', port: 5432, user: 'monitor', database: 'postgres' });
    expect(config.ssl).toEqual({});
  });

  it('PGSSLMODE applies where the settings say nothing of TLS, with libpq meaning', () => {
    expect(clientConfigFromUrl(URL, { PGSSLMODE: 'require' }).ssl).toEqual({ rejectUnauthorized: false });
    expect(withSslFromEnvironment({ host: 'db1' }, { PGSSLMODE: 'disable' }).ssl).toBe(false);
    expect(withSslFromEnvironment({ host: 'db1' }, {}).ssl).toBeUndefined();
    // The URL's own sslmode wins over the variable.
    expect(clientConfigFromUrl(`${URL}?sslmode=disable`, { PGSSLMODE: 'require' }).ssl).toBe(false);
  });

  it('keeps node-postgres’s own no-verify, in sslmode, ssl or PGSSLMODE: encrypted, not checked', () => {
    expect(clientConfigFromUrl(`${URL}?sslmode=no-verify`, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(clientConfigFromUrl(`${URL}?ssl=no-verify`, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(clientConfigFromUrl(URL, { PGSSLMODE: 'no-verify' }).ssl).toEqual({ rejectUnauthorized: false });
  });

  it('says in one sentence what PGSSLMODE=verify-ca lacks', () => {
    expect(() => clientConfigFromUrl(URL, { PGSSLMODE: 'verify-ca' })).toThrow(
      'PGSSLMODE=verify-ca needs PGSSLROOTCERT, the CA to check the server against (or use verify-full)',
    );
  });
});
