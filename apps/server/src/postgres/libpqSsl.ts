import type { ClientConfig } from 'pg';
import { parse, toClientConfig } from 'pg-connection-string';

/**
 * Connection settings read as libpq (psql) reads them. node-postgres 8 takes sslmode=prefer,
 * require and verify-ca as verify-full, a certificate check that fails on the self-signed
 * certificates those modes are used with, and warns about it on stderr; psql's require encrypts
 * without checking the certificate. aioscope is given what its users give psql, so it asks
 * node-postgres for libpq's meaning (its documented `useLibpqCompat`), unless the URL itself says
 * `uselibpqcompat`.
 */
export function clientConfigFromUrl(url: string, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const text = url.trim();
  const chosen = /[?&]uselibpqcompat=/i.test(text);
  return withSslFromEnvironment(toClientConfig(parse(text, chosen ? {} : { useLibpqCompat: true })), env);
}

/**
 * PGSSLMODE (with PGSSLROOTCERT) as libpq reads it, where the settings say nothing of TLS:
 * node-postgres reads PGSSLMODE itself, but as it reads sslmode in a URL (see above).
 */
export function withSslFromEnvironment(config: ClientConfig, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const mode = env.PGSSLMODE ?? '';
  if (config.ssl !== undefined || mode === '') return config;
  const query = new URLSearchParams({ sslmode: mode });
  if ((env.PGSSLROOTCERT ?? '') !== '') query.set('sslrootcert', env.PGSSLROOTCERT ?? '');
  const { ssl } = toClientConfig(parse(`postgres://localhost/?${query.toString()}`, { useLibpqCompat: true }));
  return ssl === undefined ? config : { ...config, ssl };
}
