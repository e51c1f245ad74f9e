import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identitySchema, type LabExperimentInput } from '@aioscope/spec';
import { runCli, waitForUrl, type CliRun } from './support/cliProcess.ts';
import { TEST_DATA_ROOT } from './support/testPostgres.ts';
import { trySocket } from './support/trySocket.ts';

const HEADER = 'X-Forwarded-User';
/** Prometheus's own credential (--metrics-token): it cannot pass the SSO proxy. */
const METRICS_TOKEN = 'scraper-token-0123456789';
/** The smallest experiment the lab takes: what a viewer may not start and an operator may. */
const EXPERIMENT: LabExperimentInput = {
  tableMb: 16,
  cacheState: 'warm',
  rounds: 1,
  variants: [{ name: 'icl=16', session: { io_combine_limit: 16 } }],
};

async function post(url: URL, user: string | null, body: unknown): Promise<{ status: number; error?: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user === null ? {} : { [HEADER]: user }) },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { error?: string };
  return { status: response.status, ...(answer.error === undefined ? {} : { error: answer.error }) };
}

/**
 * The real command line on the embedded server behind an auth proxy trusted at `trustedRange`
 * (alice an operator), its data in a folder of its own; started before the block's tests, stopped after.
 */
function aioscopeBehindProxy(
  name: string,
  trustedRange: string,
): { run: () => CliRun | undefined; base: () => string } {
  let run: CliRun | undefined;
  let base = '';
  beforeAll(async () => {
    const dataDir = path.join(TEST_DATA_ROOT, name);
    await rm(dataDir, { recursive: true, force: true });
    const flags = ['--auth-proxy-header', HEADER, '--trusted-proxy', trustedRange, '--operators', 'alice'];
    flags.push('--metrics-token', METRICS_TOKEN);
    run = runCli(['--embedded', '--no-demo', '--no-record', '--port', '0', '--data-dir', dataDir, ...flags]);
    base = await waitForUrl(run);
  }, 180_000);
  afterAll(async () => {
    if (run === undefined || run.child.exitCode !== null) return;
    run.child.kill('SIGTERM');
    await run.exited;
  }, 120_000);
  return { run: () => run, base: () => base };
}

describe('team access behind an auth proxy, on the real command line', () => {
  describe('from a trusted proxy (127.0.0.1/32), alice an operator', () => {
    const cli = aioscopeBehindProxy('team-trusted', '127.0.0.1/32,::1/128');

    it('is the user the header names, with the role --operators gives; /api/me says so', async () => {
      const as = async (user: string) =>
        identitySchema.parse(
          await (await fetch(new URL('/api/me', cli.base()), { headers: { [HEADER]: user } })).json(),
        );
      expect(await as('alice')).toEqual({ user: 'alice', role: 'operator', via: 'proxy', operatorOnly: null });
      const bob = await as('bob');
      expect(bob).toMatchObject({ user: 'bob', role: 'viewer', via: 'proxy' });
      expect(bob.operatorOnly).toMatch(/^Needs the operator role: .*bob is a viewer/);
      const targets = await fetch(new URL('/api/targets', cli.base()), { headers: { [HEADER]: 'bob' } });
      expect(targets.status).toBe(200);
    });

    it('refuses a request from the proxy without the header: the proxy must authenticate', async () => {
      for (const pathname of ['/api/me', '/api/targets', '/']) {
        const response = await fetch(new URL(pathname, cli.base()));
        expect(response.status, pathname).toBe(401);
        expect(((await response.json()) as { error: string }).error).toMatch(/sent no X-Forwarded-User header/);
      }
      expect((await fetch(new URL('/api/health', cli.base()))).status).toBe(200);
      expect(await trySocket(cli.base(), {})).toMatch(/^refused/);
      expect(await trySocket(cli.base(), { [HEADER]: 'bob' })).toBe('connected');
    });

    it('lets a viewer start nothing that writes (lab run, race, cancel); an operator starts and cancels a run', async () => {
      const viewerStart = await post(new URL('/api/lab/experiments', cli.base()), 'bob', EXPERIMENT);
      expect(viewerStart.status).toBe(403);
      expect(viewerStart.error).toMatch(/^Needs the operator role: starting or cancelling lab runs and races/);
      const viewerRace = await post(new URL('/api/race', cli.base()), 'bob', { preset: 'read-combining' });
      expect(viewerRace.status).toBe(403);
      expect(viewerRace.error).toMatch(/bob is a viewer/);

      const started = await post(new URL('/api/lab/experiments', cli.base()), 'alice', EXPERIMENT);
      expect(started.status, started.error).toBe(202);
      const list = (await (
        await fetch(new URL('/api/lab/experiments', cli.base()), { headers: { [HEADER]: 'bob' } })
      ).json()) as { id: string; status: string }[];
      const running = list.find((item) => item.status === 'running');
      expect(running, 'the operator started a run the viewer can see').toBeDefined();
      const cancelUrl = new URL(`/api/lab/experiments/${running?.id ?? ''}/cancel`, cli.base());
      expect((await post(cancelUrl, 'bob', {})).status).toBe(403);
      const cancelled = await post(cancelUrl, 'alice', {});
      // 200 once cancelled, or 409 when the one small round ended first: either way, not refused for the role.
      expect([200, 409]).toContain(cancelled.status);
    }, 120_000);
  });

  describe('from an address that is not a trusted proxy (only 10.0.0.0/8 is)', () => {
    const cli = aioscopeBehindProxy('team-untrusted', '10.0.0.0/8');

    it('refuses the header, for REST and the socket, and logs it; never trusts it', async () => {
      const response = await fetch(new URL('/api/me', cli.base()), { headers: { [HEADER]: 'alice' } });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toBe(
        'the X-Forwarded-User header came from 127.0.0.1, which is not a trusted proxy: refused (--trusted-proxy 10.0.0.0/8)',
      );
      expect((await post(new URL('/api/lab/experiments', cli.base()), 'alice', EXPERIMENT)).status).toBe(403);
      const bare = await fetch(new URL('/api/targets', cli.base()));
      expect(bare.status).toBe(403);
      expect(((await bare.json()) as { error: string }).error).toMatch(/reached through its auth proxy only/);
      expect(await trySocket(cli.base(), { [HEADER]: 'alice' })).toMatch(/^refused/);
      const deadline = Date.now() + 5_000;
      while (!/carrying X-Forwarded-User: not a trusted proxy/.test(cli.run()?.stdout() ?? '') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(cli.run()?.stdout()).toMatch(
        /refused a request from 127\.0\.0\.1 carrying X-Forwarded-User: not a trusted proxy/,
      );
    });

    it('lets a scraper with --metrics-token read /metrics from anywhere, and nothing else', async () => {
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      const metrics = await fetch(new URL('/metrics', cli.base()), { headers: bearer(METRICS_TOKEN) });
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^# HELP aioscope_/m);
      expect((await fetch(new URL('/metrics', cli.base()), { headers: bearer('not-the-token-0123456') })).status).toBe(
        403,
      );
      expect((await fetch(new URL('/metrics', cli.base()))).status).toBe(403);
      for (const pathname of ['/api/targets', '/api/me', '/']) {
        const response = await fetch(new URL(pathname, cli.base()), { headers: bearer(METRICS_TOKEN) });
        expect(response.status, pathname).toBe(403);
      }
      expect(await trySocket(cli.base(), bearer(METRICS_TOKEN))).toMatch(/^refused/);
    });
  });

  it.each([
    [['--auth-proxy-header', HEADER, '--trusted-proxy', '10.0.0/8'], '--trusted-proxy "10.0.0/8" is not an address'],
    [['--auth-proxy-header', HEADER], '--auth-proxy-header needs at least one --trusted-proxy'],
    [['--auth-proxy-header', 'X User', '--trusted-proxy', '10.0.0.0/8'], '--auth-proxy-header "X User" is not an HTTP'],
  ])('refuses %j at start: one line, exit 2, nothing started', async (flags, message) => {
    const dataDir = path.join(TEST_DATA_ROOT, 'team-bad-flags');
    await rm(dataDir, { recursive: true, force: true });
    const run = runCli(['--embedded', '--port', '0', '--data-dir', dataDir, ...flags]);
    expect(await run.exited).toBe(2);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
    expect(run.stdout()).not.toMatch(/live AIO at/);
    expect(existsSync(dataDir), 'no data folder made, no server started').toBe(false);
  });
});
