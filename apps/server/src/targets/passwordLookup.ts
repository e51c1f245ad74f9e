import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ClientConfig } from 'pg';

/**
 * Where a password comes from when the connection settings hold none: PGPASSWORD, then the
 * password file (PGPASSFILE, else ~/.pgpass), as psql looks. aioscope reads the file itself rather
 * than leaving it to node-postgres, which prints a deprecation warning on every start when it
 * uses one, and which, finding nothing, answers the server's SCRAM challenge with
 * "client password must be a string" instead of saying what is missing.
 */

/** What node-postgres hands a password function: the resolved connection parameters. */
export interface ConnectionParams {
  host?: string | undefined;
  port?: number | string | undefined;
  database?: string | undefined;
  user?: string | undefined;
}

/** The server asked for a password and none was found; the message says where aioscope looked. */
export class MissingPasswordError extends Error {}

const DEFAULT_PORT = 5432;

/** The password file psql reads: PGPASSFILE, else ~/.pgpass. */
export function passwordFilePath(env: NodeJS.ProcessEnv, home = env.HOME ?? homedir()): string {
  const named = env.PGPASSFILE;
  return named !== undefined && named !== '' ? named : path.join(home, '.pgpass');
}

/**
 * One line of a password file: host:port:database:user:password, `\:` and `\\` escaped; null for
 * comments, blank lines and lines without five fields.
 */
export function parsePasswordLine(line: string): string[] | null {
  if (line.trim() === '' || line.trimStart().startsWith('#')) return null;
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (char === '\\' && i + 1 < line.length) {
      field += line[++i];
    } else if (char === ':' && fields.length < 4) {
      fields.push(field);
      field = '';
    } else {
      field += char;
    }
  }
  fields.push(field.replace(/\r$/, ''));
  return fields.length === 5 && fields.every((value) => value !== '') ? fields : null;
}

/** A socket directory matches "localhost", as in libpq. */
function hostOf(params: ConnectionParams): string {
  const host = params.host ?? '';
  return host === '' || host.startsWith('/') ? 'localhost' : host;
}

/** The first line matching the connection (`*` matches anything), as libpq picks it. */
export function passwordFromFile(text: string, params: ConnectionParams): string | null {
  const wanted = [hostOf(params), String(params.port ?? DEFAULT_PORT), params.database ?? '', params.user ?? ''];
  for (const line of text.split('\n')) {
    const fields = parsePasswordLine(line);
    if (fields === null) continue;
    if (wanted.every((value, i) => fields[i] === '*' || fields[i] === value)) return fields[4] as string;
  }
  return null;
}

/** The password file's password for the connection, or why there is none (for the message). */
function readPasswordFile(file: string, params: ConnectionParams): { password: string } | { why: string } {
  let mode: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return { why: `${file} is not a file` };
    mode = stats.mode;
  } catch {
    return { why: `${file} does not exist` };
  }
  // libpq ignores a password file others can read; so does aioscope, and says so.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    return { why: `${file} is ignored: others can read it (chmod 600 ${file})` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { why: `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  const password = passwordFromFile(text, params);
  return password === null ? { why: `${file} has no line for it` } : { password };
}

/** "user@host:port/database", as a password file line would have to name it. */
function describeParams(params: ConnectionParams): string {
  return `${params.user ?? ''}@${hostOf(params)}:${String(params.port ?? DEFAULT_PORT)}/${params.database ?? ''}`;
}

/** The password for a connection whose settings hold none; throws MissingPasswordError. */
export function lookUpPassword(params: ConnectionParams, env: NodeJS.ProcessEnv = process.env): string {
  // An empty PGPASSWORD is no password, as libpq reads it: the password file is asked next.
  const fromEnv = env.PGPASSWORD ?? '';
  if (fromEnv !== '') return fromEnv;
  const file = passwordFilePath(env);
  const found = readPasswordFile(file, params);
  if ('password' in found) return found.password;
  throw new MissingPasswordError(
    `the server wants a password for ${describeParams(params)} and aioscope found none: PGPASSWORD is ${env.PGPASSWORD === undefined ? 'not set' : 'empty'} ` +
      `and ${found.why}. Set PGPASSWORD, or add a line host:port:database:user:password to ~/.pgpass ` +
      `(or the file PGPASSFILE names), mode 600`,
  );
}

/**
 * The config with the password looked up by aioscope when the server asks for one. A config that
 * holds a password (a URL with one, the embedded cluster's) is returned as it is.
 */
export function withPasswordLookup(config: ClientConfig): ClientConfig {
  // A URL without one parses to password '': as libpq, that is no password.
  if (config.password !== undefined && config.password !== '') return config;
  // node-postgres calls it with its resolved parameters (defaults and PG* variables applied).
  const password = (params?: ConnectionParams): string => lookUpPassword(params ?? {});
  return { ...config, password };
}
