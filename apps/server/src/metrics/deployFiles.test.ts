import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/config.ts';
import { promtool } from '../../test/support/prometheus.ts';
import { createMetricFamilies } from './metricFamilies.ts';
import { registerReplicaMetrics } from './replicaMetrics.ts';

const PROMETHEUS_DIR = path.join(REPO_ROOT, 'deploy/prometheus');
const RULES = path.join(PROMETHEUS_DIR, 'aioscope-rules.yml');
const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/aioscope-dashboard.json');

/** Every series name /metrics can expose (a histogram's _bucket, _sum and _count included). */
async function exposedNames(): Promise<Set<string>> {
  const registry = new Registry();
  createMetricFamilies(registry);
  // A replica sharing a store adds its own series (--store).
  registerReplicaMetrics(registry, () => ({
    replicaId: 'r',
    label: 'r',
    listed: [],
    owned: new Set(),
    handovers: 0,
    replicas: 1,
    connected: true,
    storeError: null,
  }));
  // prom-client's .d.ts declares `type` a numeric enum; at run time it is the string ('histogram').
  const names = (await registry.getMetricsAsJSON()).flatMap((metric) =>
    String(metric.type) === 'histogram'
      ? ['_bucket', '_sum', '_count'].map((suffix) => metric.name + suffix)
      : [metric.name],
  );
  return new Set(names);
}

/** A file names only metrics the exporter defines: a renamed metric must not leave a silent rule behind. */
async function expectKnownMetrics(file: string): Promise<void> {
  const known = await exposedNames();
  const used = new Set((await readFile(file, 'utf8')).match(/\baioscope_[a-z_]+/g) ?? []);
  const unknown = [...used].filter((name) => !known.has(name));
  expect(unknown, `${path.basename(file)} uses metrics /metrics does not expose`).toEqual([]);
  expect(used.size).toBeGreaterThan(5);
}

describe('deploy/prometheus', () => {
  it('has alert rules that promtool accepts, on metrics the exporter defines', async () => {
    const check = promtool(['check', 'rules', RULES]);
    expect(check.output).toContain('SUCCESS: 9 rules found');
    expect(check.status).toBe(0);
    await expectKnownMetrics(RULES);
  });

  it('passes its promtool rule tests, each alert firing and not firing', async () => {
    const tests = path.join(PROMETHEUS_DIR, 'aioscope-rules.test.yml');
    const text = await readFile(tests, 'utf8');
    for (const alert of (await readFile(RULES, 'utf8')).match(/(?<=alert: )\w+/g) ?? []) {
      expect(text, `${alert} is tested`).toContain(`alertname: ${alert}`);
    }
    const run = promtool(['test', 'rules', tests]);
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('has a scrape config example that promtool accepts, with the bearer token variant', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aioscope-promconfig-'));
    try {
      const example = await readFile(path.join(PROMETHEUS_DIR, 'prometheus.example.yml'), 'utf8');
      expect(example).toMatch(/authorization:\s+type: Bearer\s+credentials_file: \/etc\/prometheus\/aioscope.token/);
      // promtool checks that the token file exists: point it at one.
      await writeFile(path.join(dir, 'token'), 'x'.repeat(16));
      await writeFile(path.join(dir, 'prometheus.yml'), example.replace('/etc/prometheus/aioscope.token', 'token'));
      await copyFile(RULES, path.join(dir, 'aioscope-rules.yml'));
      const check = promtool(['check', 'config', path.join(dir, 'prometheus.yml')]);
      expect(check.output).toContain('SUCCESS');
      expect(check.status).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/grafana', () => {
  it('has a dashboard on the exporter metrics, every query filtered by the target variable', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      templating: { list: { name: string; query: unknown }[] };
      panels: { title: string; targets: { expr: string }[] }[];
    };
    expect(dashboard.templating.list.map((variable) => variable.name)).toContain('target');
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(8);
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) expect(target.expr, panel.title).toContain('target=~"$target"');
    }
    await expectKnownMetrics(DASHBOARD);
  });
});
