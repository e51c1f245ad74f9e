import type { ClientConfig } from 'pg';
import { parse, toClientConfig, type ConnectionOptions } from 'pg-connection-string';

/**
 * Connection settings read as libpq (psql) reads them. node-postgres 8 takes sslmode=prefer,
 * require and verify-ca as verify-full, a certificate check that fails on the self-signed
 * certificates those modes are used with, and warns about it on stderr; psql's require encrypts
 * without checking the certificate. aioscope is given what its users give psql, so it asks
 * node-postgres for libpq's meaning (its documented `useLibpqCompat`), unless the URL itself says
 * `uselibpqcompat`. node-postgres's own `no-verify` (sslmode or ssl), which libpq does not know,
 * keeps its meaning: encrypted, the certificate not checked.
 */
export function clientConfigFromUrl(url: string, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const text = url.trim();
  const ownReading = /[?&]uselibpqcompat=|[?&]sslmode=no-verify(&|$)/i.test(text);
  const parsed = parse(text, ownReading ? {} : { useLibpqCompat: true });
  return withSslFromEnvironment(withNoVerify(parsed, toClientConfig(parsed)), env);
}

/** `ssl=no-verify`, which node-postgres reads from a connection string and toClientConfig drops. */
function withNoVerify(parsed: ConnectionOptions, config: ClientConfig): ClientConfig {
  return parsed.ssl === 'no-verify' ? { ...config, ssl: { rejectUnauthorized: false } } : config;
}

/**
 * PGSSLMODE (with PGSSLROOTCERT) as libpq reads it, where the settings say nothing of TLS:
 * node-postgres reads PGSSLMODE itself, but as it reads sslmode in a URL (see above).
 */
export function withSslFromEnvironment(config: ClientConfig, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const mode = env.PGSSLMODE ?? '';
  if (config.ssl !== undefined || mode === '') return config;
  if (mode === 'no-verify') return { ...config, ssl: { rejectUnauthorized: false } };
  const query = new URLSearchParams({ sslmode: mode });
  if ((env.PGSSLROOTCERT ?? '') !== '') query.set('sslrootcert', env.PGSSLROOTCERT ?? '');
  let ssl: ClientConfig['ssl'];
  try {
    ({ ssl } = toClientConfig(parse(`postgres://localhost/?${query.toString()}`, { useLibpqCompat: true })));
  } catch (error) {
    throw new Error(sslVariableProblem(mode, error), { cause: error });
  }
  return ssl === undefined ? config : { ...config, ssl };
}

function sslVariableProblem(mode: string, error: unknown): string {
  const { code, path: file, message } = error as NodeJS.ErrnoException;
  if (code !== undefined && file !== undefined) return `PGSSLROOTCERT names ${file}, which cannot be read (${code})`;
  if (/sslrootcert/.test(message ?? ''))
    return `PGSSLMODE=${mode} needs PGSSLROOTCERT, the CA to check the server against (or use verify-full)`;
  return `PGSSLMODE=${mode}: ${message ?? String(error)}`;
}
