import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './config/config.ts';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  ports?: string[];
  security_opt?: string[];
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  environment?: Record<string, string>;
}

/** Docker cannot run on this machine, so the compose file's shape is what is checked. */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, ComposeService>;
  };

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

  it('publishes the dashboard on the host loopback only', () => {
    for (const service of Object.values(compose.services)) {
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('offers an io_uring variant with a seccomp profile that allows it', () => {
    const uring = compose.services['postgres-uring'];
    expect(uring?.image).toBe('postgres:18');
    expect(uring?.command).toContain('io_method=io_uring');
    expect(uring?.security_opt).toContain('seccomp=unconfined');
  });

  it('has a Dockerfile whose entry point is the command line', () => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toContain('apps/server/src/cli.ts');
  });
});
