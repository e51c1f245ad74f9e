import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config/config.ts';
import { waitUntil } from './polling.ts';
import { freePort } from './testPostgres.ts';

export const NGINX = '/usr/sbin/nginx';
const TEAM_CONFIG = path.join(REPO_ROOT, 'deploy/team/nginx.conf');

export interface RunningNginx {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** The master process (its worker is its child), for a bench's CPU figures. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Debian's nginx with deploy/team/nginx.conf as committed, only its listen port and the replicas'
 * ports replaced: the load balancer a team runs, in front of replicas a, b and c (--replica-name)
 * on the given ports.
 */
export async function startTeamNginx(replicaPorts: readonly number[]): Promise<RunningNginx> {
  const port = await freePort();
  // The file's replicas a, b and c listen on 7180, 7181 and 7182: here on the ports given, in that order.
  if (replicaPorts.length !== 3) throw new Error(`deploy/team/nginx.conf lists 3 replicas, not ${replicaPorts.length}`);
  const team = (await readFile(TEAM_CONFIG, 'utf8'))
    .replace(/127\.0\.0\.1:718([0-2])\b/g, (_, i: string) => `127.0.0.1:${replicaPorts[Number(i)] ?? 0}`)
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${port};`);
  return startNginx(port, team);
}

/**
 * nginx standing in for a team's SSO proxy in front of one aioscope: it names the user in
 * `header` on every request, the socket's upgrade included, from the cookie `cookie` (as an SSO
 * proxy does from its session). A browser cannot set that header itself: Chromium sends no
 * extra header on a WebSocket handshake.
 */
export async function startAuthProxyNginx(appPort: number, header: string, cookie: string): Promise<RunningNginx> {
  const port = await freePort();
  return startNginx(
    port,
    [
      "map $http_upgrade $connection_upgrade { default upgrade; '' close; }",
      'server {',
      `  listen 127.0.0.1:${port};`,
      '  location / {',
      `    proxy_pass http://127.0.0.1:${appPort};`,
      '    proxy_http_version 1.1;',
      '    proxy_set_header Upgrade $http_upgrade;',
      '    proxy_set_header Connection $connection_upgrade;',
      // With its port: the page's socket is same-origin by Host and Origin.
      '    proxy_set_header Host $http_host;',
      // Never the one the browser sent; empty (no cookie) is not sent at all.
      `    proxy_set_header ${header} $cookie_${cookie};`,
      '  }',
      '}',
    ].join('\n'),
  );
}

/** nginx on `port` with `serverConfig` in its http block, once it answers /api/health. */
async function startNginx(port: number, serverConfig: string): Promise<RunningNginx> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aioscope-nginx-'));
  await writeFile(path.join(dir, 'server.conf'), serverConfig);
  await writeFile(
    path.join(dir, 'nginx.conf'),
    [
      'worker_processes 1;',
      'daemon off;',
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'error.log')};`,
      // Each viewer holds two connections (client and replica); nginx's default of 512 is 255 viewers.
      'events { worker_connections 4096; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, t)};`),
      `  include ${path.join(dir, 'server.conf')};`,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  await waitUntil(
    async () => (await fetch(new URL('/api/health', url)).catch(() => null))?.ok === true,
    15_000,
    'nginx answering /api/health from aioscope',
    100,
  );
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
