import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/system/processes.ts';

const execFileAsync = promisify(execFile);

/** A server from Debian's postgresql-NN package, which .ci/run installs. */
export interface DebianPostgres {
  /** Connection URL of its superuser (trust authentication on loopback). */
  url: string;
  stop(): Promise<void>;
}

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
  const bin = `/usr/lib/postgresql/${major}/bin`;
  if (!existsSync(path.join(bin, 'initdb'))) {
    throw new Error(`${bin}/initdb not found: install Debian's postgresql-${major} (.ci/run does)`);
  }
  const user = await asPostgresUser();
  const root = await mkdtemp(path.join(tmpdir(), `aioscope-pg${major}-`));
  await chmod(root, 0o777);
  const dataDir = path.join(root, 'data');
  const port = await findFreePort();
  const run = (tool: string, args: string[]): Promise<unknown> =>
    execFileAsync(path.join(bin, tool), args, { ...user, cwd: root, timeout: 60_000 });
  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
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
    async stop(): Promise<void> {
      await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
