/**
 * `npx aioscope` as a user gets it: apps/server packed (its prepack builds the bundle and the web
 * app), the tarball installed into an empty folder from the npm cache, the installed command started
 * against a real PostgreSQL 18. Nothing from the repository is on that process's module path.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config/config.ts';
import { SYNTHETIC_START, syntheticHistory } from '../src/history/recordingFileFixture.ts';
import { writeRecordingFile } from '../src/history/recordingFileWriter.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import { waitForUrl, type CliRun } from './support/cliProcess.ts';
import { waitUntil } from './support/polling.ts';
import { startTestPostgres } from './support/testPostgres.ts';

const run = promisify(execFile);
const SERVER_DIR = path.join(REPO_ROOT, 'apps/server');
/** Packing builds the web app and installing resolves ~100 packages: minutes on a busy two-core machine. */
const SETUP_TIMEOUT_MS = 600_000;

/** The fields of GET /api/targets this test reads. */
interface ListedTarget {
  kind: string;
  demoWorkload: boolean;
  status: { state: string };
  server: { versionNum: number } | null;
}

/**
 * A user's shell, not `npm test`'s: no npm_* variables (an inherited npm_config_call turns npx into
 * `npm exec -c` and fails it), no node_modules/.bin of the repository on PATH, no PG* variables (only
 * --db picks the target). npm, npx and the bin's `#!/usr/bin/env node` run on the Node running this
 * test, so a CI pass on another Node tests the package on that Node.
 */
function packageEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('PG') && !/^npm_/i.test(name)),
  );
  const userPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => !entry.endsWith(`node_modules${path.sep}.bin`) && !entry.includes('node-gyp-bin'));
  return { ...env, PATH: [path.dirname(process.execPath), ...userPath].join(path.delimiter) };
}

/** Starts the installed command in its own process group: npx, npm exec and node stop together. */
function startInstalledCommand(cwd: string, args: string[]): CliRun {
  let stdout = '';
  let stderr = '';
  // --yes=false: the command must come from the installed tarball, never from a registry.
  const child = spawn('npx', ['--yes=false', 'aioscope', ...args], {
    cwd,
    env: packageEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * Whether a process of the group is still running. Linux's /proc, not kill(-group, 0): a member that
 * has exited but was not yet reaped (npx's children are orphaned when npx exits first) still counts
 * for kill.
 */
function groupIsRunning(groupId: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(path.join('/proc', entry, 'stat'), 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces, so the fields are read after its ')'.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === groupId && state !== 'Z') return true;
  }
  return false;
}

/** SIGTERM to npx, npm exec and aioscope alike (npx does not pass it on), SIGKILL if they linger. */
async function stopProcessGroup(groupId: number): Promise<void> {
  if (!groupIsRunning(groupId)) return;
  process.kill(-groupId, 'SIGTERM');
  try {
    await waitUntil(() => !groupIsRunning(groupId), 15_000, 'aioscope to stop on SIGTERM', 100);
  } catch (error) {
    process.kill(-groupId, 'SIGKILL');
    throw error;
  }
}

describe('the packed server: npm pack, npm install into an empty folder, npx aioscope --db', () => {
  let workDir: string;
  let installDir: string;
  let postgres: EmbeddedPostgresServer;
  let command: CliRun | undefined;
  let base: string;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'aioscope-pack-'));
    installDir = path.join(workDir, 'app');
    await mkdir(installDir);
    const env = packageEnvironment();

    await run('npm', ['pack', '--pack-destination', workDir], { cwd: SERVER_DIR, env, maxBuffer: 16 << 20 });
    const tarballs = (await readdir(workDir)).filter((name) => name.endsWith('.tgz'));
    expect(tarballs).toHaveLength(1);
    const tarball = path.join(workDir, tarballs[0] ?? '');

    // --prefix: the empty folder is the project even when a folder above it holds a package.json.
    await run('npm', ['install', '--prefix', installDir, tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: installDir,
      env,
      maxBuffer: 16 << 20,
    });

    postgres = await startTestPostgres('pack');
    const { user, password, port } = postgres.connectionConfig;
    const url = `postgres://${String(user)}:${String(password)}@127.0.0.1:${String(port)}/postgres`;
    command = startInstalledCommand(installDir, ['--db', url, '--port', '0']);
    base = await waitForUrl(command, 180_000);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    try {
      // Throws, failing the suite, when a process outlives SIGTERM (it is then killed).
      const groupId = command?.child.pid;
      if (groupId !== undefined) await stopProcessGroup(groupId);
    } finally {
      await postgres?.stop();
      if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('installs the bundle alone: no workspace package, no tsx, no TypeScript sources', () => {
    const installed = path.join(installDir, 'node_modules');
    expect(existsSync(path.join(installed, '@aioscope/server/dist/cli.js'))).toBe(true);
    expect(existsSync(path.join(installed, '@aioscope/server/src'))).toBe(false);
    expect(existsSync(path.join(installed, '@aioscope/core'))).toBe(false);
    expect(existsSync(path.join(installed, '@aioscope/spec'))).toBe(false);
    expect(existsSync(path.join(installed, 'tsx'))).toBe(false);
  });

  it('serves the dashboard it ships, with its assets', async () => {
    const page = await fetch(new URL('/', base));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const shipped = path.join(installDir, 'node_modules/@aioscope/server/dist/web/index.html');
    expect(html).toBe(await readFile(shipped, 'utf8'));

    const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(new URL(script ?? '/missing.js', base));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('lists the --db target in /api/targets and reaches it', async () => {
    const targets = async (): Promise<ListedTarget[]> =>
      (await (await fetch(new URL('/api/targets', base))).json()) as ListedTarget[];
    await waitUntil(async () => (await targets())[0]?.status.state === 'live', 60_000, 'the target to be live', 200);
    const [target, ...others] = await targets();
    expect(others).toHaveLength(0);
    expect(target?.kind).toBe('external');
    expect(target?.demoWorkload).toBe(false);
    expect(target?.server?.versionNum).toBeGreaterThanOrEqual(180000);
  });

  it('opens a dropped recording file through the ingest process it ships', async () => {
    const file = path.join(workDir, 'dropped.aioscope.gz');
    const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + 20_000 };
    await writeRecordingFile(syntheticHistory('embedded', { durationMs: 20_000 }), range, file);
    const opened = await fetch(new URL('/api/recordings?name=dropped.aioscope.gz', base), {
      method: 'POST',
      headers: { 'content-type': 'application/gzip' },
      body: await readFile(file),
    });
    expect(opened.status, await opened.clone().text()).toBe(201);
    const { targetId } = (await opened.json()) as { targetId: string };
    const frames = await fetch(
      new URL(`/api/targets/${targetId}/history/frames?from=${range.from}&to=${range.to}`, base),
    );
    expect(frames.status).toBe(200);
    expect(((await frames.json()) as { frames: unknown[] }).frames).toHaveLength(400);
  });
});
