/**
 * The container image and the compose file, checked without Docker (no engine runs on this
 * machine, so the image is never built here):
 * - docker-compose.yml: Debian's docker-compose (`config`, which validates against the Compose
 *   file schema it ships, interpolates variables and resolves services and volumes), and its shape;
 * - Dockerfile: the linter of dockerfile-utils, and its structure read with dockerfile-ast;
 * - the image's HEALTHCHECK command, run against an aioscope that requires a token;
 * - the demo load's script: Debian's shellcheck (apps/server/test/demoLoad.int.test.ts runs it).
 * .ci/run installs the Debian packages; a missing tool fails the test with what to install.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildApp } from './app/app.ts';
import { REPO_ROOT } from './config/config.ts';

const DOCKER_COMPOSE = '/usr/bin/docker-compose';
const SHELLCHECK = '/usr/bin/shellcheck';
const COMPOSE_FILE = path.join(REPO_ROOT, 'docker-compose.yml');
const DEMO_LOAD_SCRIPT = 'deploy/demo-load/demo-load.sh';
const TOKEN = 'compose-test-token-0123456789';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  ports?: string[];
  volumes?: string[];
  security_opt?: string[];
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  environment?: Record<string, string>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** A missing tool fails the test with what to install: a skipped check would pass unnoticed. */
function run(tool: string, debianPackage: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  if (!existsSync(tool)) throw new Error(`${tool} not found: install Debian's ${debianPackage} (.ci/run does)`);
  const result = spawnSync(tool, args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), ...env },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** `docker-compose config -q`: the whole file as Compose reads it, nothing started. */
function composeConfig(file: string, args: string[] = [], env: NodeJS.ProcessEnv = { AIOSCOPE_TOKEN: TOKEN }) {
  return run(
    DOCKER_COMPOSE,
    'docker-compose',
    ['--project-directory', REPO_ROOT, '-f', file, ...args, 'config', '-q'],
    env,
  );
}

/** `-c name=value` of a postgres command line. */
function setting(service: ComposeService | undefined, name: string): string | undefined {
  return service?.command?.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

function megabytes(value: string | undefined): number {
  const match = /^(\d+)MB$/.exec(value ?? '');
  return match === null ? Number.NaN : Number(match[1]);
}

// docker-compose is Python: each `config` takes seconds on a busy two-core machine.
describe('docker-compose.yml', { timeout: 60_000 }, () => {
  const compose = parse(readFileSync(COMPOSE_FILE, 'utf8')) as ComposeFile;

  it('is a Compose file that docker-compose accepts, with and without the io_uring profile', () => {
    expect(composeConfig(COMPOSE_FILE)).toEqual({ status: 0, output: '' });
    expect(composeConfig(COMPOSE_FILE, ['--profile', 'io_uring'])).toEqual({ status: 0, output: '' });
  });

  it('is refused without AIOSCOPE_TOKEN, saying what to set', () => {
    const refused = composeConfig(COMPOSE_FILE, [], {});
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain('set AIOSCOPE_TOKEN (16+ characters)');
  });

  it('has a check that catches a broken file: an unknown key, an undeclared volume', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aioscope-compose-'));
    try {
      const broken = (change: (file: ComposeFile) => void): string => {
        const copy = structuredClone(compose);
        change(copy);
        const file = path.join(dir, `compose-${Math.random().toString(36).slice(2)}.yml`);
        writeFileSync(file, stringify(copy));
        return file;
      };
      const unknownKey = composeConfig(
        broken((file) => Object.assign(file.services.aioscope ?? {}, { helthcheck: {} })),
      );
      expect(unknownKey.status).not.toBe(0);
      expect(unknownKey.output).toContain('helthcheck');
      const undeclared = composeConfig(broken((file) => delete file.volumes));
      expect(undeclared.status).not.toBe(0);
      expect(undeclared.output).toMatch(/pgdata/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs PostgreSQL 18 from the official image with AIO settings', () => {
    const postgres = compose.services.postgres;
    expect(postgres?.image).toBe('postgres:18');
    expect(postgres?.command).toContain('io_method=worker');
  });

  it('builds aioscope from the Dockerfile in the repository and points it at that server', () => {
    const aioscope = compose.services.aioscope;
    expect(aioscope?.build?.context).toBe('.');
    expect(existsSync(path.join(REPO_ROOT, aioscope?.build?.dockerfile ?? 'missing'))).toBe(true);
    expect(aioscope?.command?.join(' ')).toMatch(/--db postgres:\/\/\S+@postgres:5432\//);
    expect(aioscope?.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('gives aioscope an access token whenever it listens on all interfaces in a container', () => {
    for (const service of Object.values(compose.services)) {
      if (service.command?.includes('0.0.0.0') === true)
        expect(service.environment?.AIOSCOPE_TOKEN).toMatch(/^\$\{AIOSCOPE_TOKEN:\?/);
    }
  });

  it('publishes the dashboard on the host loopback only, from the port the image checks', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:\d+:7180$/);
      if (service.build !== undefined) expect(service.command?.join(' '), name).toContain('--port 7180');
    }
  });

  it("keeps each aioscope's data folder in a volume of its own", () => {
    for (const name of ['aioscope', 'aioscope-uring']) {
      const volume = compose.services[name]?.volumes?.find((entry) => entry.endsWith(':/home/node/.aioscope'));
      expect(volume, name).toBeDefined();
      expect(Object.keys(compose.volumes ?? {})).toContain(volume?.split(':')[0]);
    }
  });

  it('offers an io_uring variant with a seccomp profile that allows it', () => {
    const uring = compose.services['postgres-uring'];
    expect(uring?.image).toBe('postgres:18');
    expect(uring?.command).toContain('io_method=io_uring');
    expect(uring?.security_opt).toContain('seccomp=unconfined');
  });

  it('runs the demo load by default, with the server: cold scans of a table 8 times shared_buffers', () => {
    for (const [name, server, profiles] of [
      ['demo-load', 'postgres', undefined],
      ['demo-load-uring', 'postgres-uring', ['io_uring']],
    ] as const) {
      const load = compose.services[name];
      const postgres = compose.services[server];
      expect(load?.profiles, name).toEqual(profiles);
      expect(postgres?.profiles, server).toEqual(profiles);
      expect(load?.image).toBe('postgres:18');
      expect(load?.entrypoint).toEqual(['sh', `/demo-load/${path.basename(DEMO_LOAD_SCRIPT)}`]);
      expect(load?.volumes).toContain(`./${path.dirname(DEMO_LOAD_SCRIPT)}:/demo-load:ro`);
      expect(load?.environment?.PGHOST).toBe(server);
      expect(load?.environment?.PGPASSWORD).toBe(postgres?.environment?.POSTGRES_PASSWORD);
      expect(load?.depends_on?.[server]?.condition).toBe('service_healthy');
      expect(Number(load?.environment?.DEMO_TABLE_MB)).toBeGreaterThanOrEqual(
        8 * megabytes(setting(postgres, 'shared_buffers')),
      );
      // The server's data volume, read-only, at the same path: the script drops the table's files
      // from the OS page cache as well.
      const data = postgres?.volumes?.find((entry) => entry.endsWith(':/var/lib/postgresql'));
      expect(data, server).toBeDefined();
      expect(load?.volumes).toContain(`${data ?? ''}:ro`);
    }
    expect(existsSync(path.join(REPO_ROOT, DEMO_LOAD_SCRIPT))).toBe(true);
  });

  it('has a demo load script that shellcheck passes', () => {
    expect(run(SHELLCHECK, 'shellcheck', ['--shell=sh', DEMO_LOAD_SCRIPT])).toEqual({ status: 0, output: '' });
  });
});

/** The Dockerfile's stages: each FROM and the instructions up to the next. */
function stages(text: string): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    if (instruction.getKeyword() === 'FROM') result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

const args = (instruction: Instruction | undefined): string => instruction?.getArgumentsContent() ?? '';
const ofKind = (stage: Instruction[], keyword: string): Instruction[] =>
  stage.filter((instruction) => instruction.getKeyword() === keyword);

/** The exec form of a HEALTHCHECK, CMD or ENTRYPOINT: its JSON array. */
function execForm(instruction: Instruction | undefined): string[] {
  const json = /(?:^|\s)(\[.*\])\s*$/s.exec(args(instruction))?.[1];
  if (json === undefined) throw new Error(`not in exec form: ${instruction?.toString() ?? 'missing'}`);
  return JSON.parse(json) as string[];
}

describe('Dockerfile', { timeout: 60_000 }, () => {
  const text = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const [pack = [], final = [], ...more] = stages(text);

  it('passes the dockerfile-utils linter, which does find faults', () => {
    expect(validate(text)).toEqual([]);
    const faults = validate(`${text}\nHEALTHCHECK --intervl=1s CMD true\nRUNN true\n`).map((d) => d.message);
    expect(faults).toEqual(expect.arrayContaining(['Unknown flag: intervl', 'Unknown instruction: RUNN']));
  });

  it('builds on Node 24 in two stages, the first packing the server as `npx aioscope` gets it', () => {
    expect(more).toHaveLength(0);
    for (const stage of [pack, final]) expect(args(stage[0])).toMatch(/^node:24-bookworm-slim\b/);
    expect(text).not.toMatch(/node:(1\d|20|22)\b/);
    const packRuns = ofKind(pack, 'RUN').map(args);
    expect(packRuns).toContain('npm ci --no-audit --no-fund');
    expect(packRuns.some((line) => line.includes('npm pack -w @aioscope/server'))).toBe(true);
  });

  it('installs only the packed tarball in the image it runs, without dev dependencies or sources', () => {
    const stageName = /\bAS\s+(\S+)/i.exec(args(pack[0]))?.[1];
    const copies = ofKind(final, 'COPY');
    expect(copies.map((copy) => copy.toString())).toEqual([expect.stringContaining(`--from=${stageName ?? '?'}`)]);
    const install = ofKind(final, 'RUN').map(args).join('\n');
    expect(install).toMatch(/npm install --omit=dev [^\n]*aioscope-server-\*\.tgz/);
    for (const instruction of final) {
      expect(instruction.toString()).not.toMatch(/\btsx\b|apps\/server\/src|npm ci/);
    }
  });

  it('runs as the image’s node user, from the bin the tarball installs, with its data folder writable', () => {
    const users = ofKind(final, 'USER').map(args);
    expect(users.at(-1)).toBe('node');
    const lastUser = final.findIndex((instruction) => instruction === ofKind(final, 'USER').at(-1));
    const lastRun = final.findLastIndex((instruction) => instruction.getKeyword() === 'RUN');
    const entrypoint = final.findIndex((instruction) => instruction.getKeyword() === 'ENTRYPOINT');
    expect(lastRun).toBeLessThan(lastUser);
    expect(lastUser).toBeLessThan(entrypoint);

    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/server/package.json'), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    expect(Object.keys(manifest.bin)).toEqual(['aioscope']);
    expect(execForm(final[entrypoint])).toEqual(['/opt/aioscope/node_modules/.bin/aioscope']);
    expect(ofKind(final, 'WORKDIR').map(args)).toContain('/opt/aioscope');
    // config.ts: outside a checkout the data folder is ~/.aioscope; the image's node user owns it.
    expect(ofKind(final, 'RUN').map(args).join('\n')).toMatch(/chown node:node \/home\/node\/\.aioscope/);
    expect(execForm(ofKind(final, 'CMD')[0])).toEqual(['--host', '0.0.0.0', '--port', '7180']);
    expect(ofKind(final, 'EXPOSE').map(args)).toEqual(['7180']);
  });

  it('has a HEALTHCHECK on /api/health with Node’s fetch (the image has no curl)', () => {
    const [healthcheck, ...others] = ofKind(final, 'HEALTHCHECK');
    expect(others).toHaveLength(0);
    const command = execForm(healthcheck);
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain("fetch('http://127.0.0.1:7180/api/health'");
    expect(healthcheck?.toString()).not.toMatch(/curl|wget|TOKEN/);
  });

  it('whose command passes against an aioscope that requires a token, and fails when none answers', async () => {
    const command = execForm(ofKind(final, 'HEALTHCHECK')[0]);
    // Run as the container runs it, on the port this test's aioscope listens on (asynchronously:
    // that aioscope answers from this process).
    const check = (port: number): Promise<number | null> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [command[1] ?? '', (command[2] ?? '').replace(':7180/', `:${port}/`)], {
          stdio: 'ignore',
        });
        child.once('error', reject);
        child.once('exit', (code) => resolve(code));
      });
    const { app } = await buildApp({ monitors: new Map(), webRoot: '/nonexistent', token: TOKEN });
    let port: number;
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      port = typeof address === 'object' && address !== null ? address.port : 0;
      expect((await fetch(`http://127.0.0.1:${port}/api/targets`)).status).toBe(401);
      expect(await check(port)).toBe(0);
    } finally {
      await app.close();
    }
    expect(await check(port)).toBe(1);
  });
});

describe('.dockerignore', () => {
  it('keeps installs, builds and local data out of the build context', () => {
    const ignored = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '.aioscope', 'apps/web/dist', 'apps/server/dist', '.ci/.node24', '.git'])
      expect(ignored, entry).toContain(entry);
  });
});
