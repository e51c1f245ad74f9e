import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../src/system/processes.ts';

/** Debian's `prometheus` package, which .ci/run installs when these are absent. */
export const PROMTOOL = '/usr/bin/promtool';
export const PROMETHEUS = '/usr/bin/prometheus';

/** A missing tool fails the test with what to install: a skipped check would pass unnoticed. */
export function requireTool(tool: string): string {
  if (!existsSync(tool)) throw new Error(`${tool} not found: install Debian's prometheus package (.ci/run does)`);
  return tool;
}

export interface ToolResult {
  status: number | null;
  output: string;
}

/** Runs promtool, optionally feeding stdin (`check metrics` reads the exposition from it). */
export function promtool(args: string[], stdin?: string): ToolResult {
  const result = spawnSync(requireTool(PROMTOOL), args, { input: stdin, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface RunningPrometheus {
  url: string;
  /** An instant query through the HTTP API: the result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/** A real Prometheus on a free loopback port, scraping one aioscope every second with its token. */
export async function startPrometheus(target: { hostPort: string; token: string }): Promise<RunningPrometheus> {
  requireTool(PROMETHEUS);
  const root = await mkdtemp(path.join(tmpdir(), 'aioscope-prometheus-'));
  const tokenFile = path.join(root, 'token');
  await writeFile(tokenFile, target.token, { mode: 0o600 });
  const config = [
    'global: { scrape_interval: 1s, evaluation_interval: 1s }',
    'scrape_configs:',
    '  - job_name: aioscope',
    '    authorization: { type: Bearer, credentials_file: ' + JSON.stringify(tokenFile) + ' }',
    `    static_configs: [{ targets: [${JSON.stringify(target.hostPort)}] }]`,
  ].join('\n');
  await writeFile(path.join(root, 'prometheus.yml'), config);
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${path.join(root, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(root, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(root, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready after 30 s: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as { status: string; error?: string; data?: { result: unknown } };
      if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error ?? response.status}`);
      return body.data?.result as Awaited<ReturnType<RunningPrometheus['query']>>;
    },
    stop,
  };
}
