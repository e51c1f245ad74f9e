import { describe, expect, it } from 'vitest';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { promtool } from '../../test/support/prometheus.ts';
import { MAX_NAMED_SCRAPERS, MetricsExporter } from './metricsExporter.ts';
import { ReplaySource } from './replaySource.ts';
import { LATEST_FRESH_MS } from './writeTargetMetrics.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The sample lines of a text exposition (labels hold no escaped quotes in these tests). */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

function recording(serverName: string): ReturnType<typeof buildPayloads> {
  const server = recordedServers().find((candidate) => candidate.name === serverName);
  if (server === undefined) throw new Error(`no recording ${serverName}`);
  return buildPayloads(server);
}

function replay(serverName: string, id: string): ReplaySource {
  const payloads = recording(serverName);
  return new ReplaySource({ ...payloads.summary, id }, payloads.audit);
}

/** Emits a recording's frames and deltas; returns what was emitted. */
function feed(source: ReplaySource, serverName: string): ReturnType<typeof buildPayloads> {
  const payloads = recording(serverName);
  for (const frame of payloads.frames) source.emitFrame(frame);
  for (const delta of payloads.ioDeltas) source.emitIoDelta(delta);
  return payloads;
}

function values(samples: Sample[], name: string, target: string): number[] {
  return samples.filter((s) => s.name === name && s.labels.target === target).map((s) => s.value);
}

describe('MetricsExporter', () => {
  it('reports io worker figures under io_method = worker and leaves them out (not 0) under io_uring', async () => {
    const now = 1_000;
    const worker = replay('pg19beta3-worker', 'worker');
    const uring = replay('pg18.6-io_uring', 'uring');
    const exporter = new MetricsExporter(new Map([worker, uring].map((s) => [s.id, s])), { now: () => now });
    const workerFrames = feed(worker, 'pg19beta3-worker').frames;
    feed(uring, 'pg18.6-io_uring');
    const samples = parseExposition((await exporter.scrape()) ?? '');
    for (const name of ['aioscope_io_workers', 'aioscope_io_worker_busy_ratio', 'aioscope_io_worker_backlog_max']) {
      expect(values(samples, name, 'worker'), name).toHaveLength(1);
      expect(values(samples, name, 'uring'), name).toEqual([]);
    }
    const max = values(samples, 'aioscope_reads_in_flight_max', 'worker')[0];
    for (const frame of workerFrames) expect(max).toBeGreaterThanOrEqual(frame.inflight?.total.count ?? 0);
    expect(values(samples, 'aioscope_io_combine_limit_bytes', 'uring')).toEqual([131_072]);
    expect(values(samples, 'aioscope_samples_total', 'uring')).toEqual([62]);
    const live = samples.find((s) => s.name === 'aioscope_connection_state' && s.labels.state === 'live');
    expect(live?.value).toBe(1);
    await exporter.close();
  });

  it('keeps pg_stat_io counters equal to the sum of non-reset deltas, and never lower after a reset', async () => {
    let now = 0;
    const source = replay('pg18.6-io_uring', 'uring');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { now: () => now, processMetrics: false });
    const deltas = feed(source, 'pg18.6-io_uring').ioDeltas;
    expect(deltas.at(-1)?.reset).toBe(true);
    let samples = parseExposition((await exporter.scrape()) ?? '');
    const reads = values(samples, 'aioscope_pg_stat_io_reads_total', 'uring').reduce((a, b) => a + b, 0);
    expect(reads).toBe(deltas.filter((d) => !d.reset).reduce((sum, d) => sum + d.reads, 0));
    expect(values(samples, 'aioscope_pg_stat_io_reset_intervals_total', 'uring')).toEqual([1]);
    // The exact bytes per read does not reach back across the reset: absent until the next delta.
    expect(values(samples, 'aioscope_stat_io_read_size_bytes', 'uring')).toEqual([]);
    const after = deltas[0];
    if (after === undefined || after.bytesPerRead === null) throw new Error('recording has no reads');
    source.emitIoDelta({ ...after, t: after.t + 60_000 });
    samples = parseExposition((await exporter.scrape()) ?? '');
    expect(values(samples, 'aioscope_stat_io_read_size_bytes', 'uring')).toEqual([after.bytesPerRead]);
    expect(values(samples, 'aioscope_pg_stat_io_reads_total', 'uring').reduce((a, b) => a + b, 0)).toBe(
      reads + after.reads,
    );
    now = LATEST_FRESH_MS + 1;
    samples = parseExposition((await exporter.scrape()) ?? '');
    expect(values(samples, 'aioscope_stat_io_read_size_bytes', 'uring'), 'stale once deltas stop').toEqual([]);
    await exporter.close();
  });

  it('leaves idle io workers (IoWorkerMain) out of the AIO waits', async () => {
    const source = replay('pg19beta3-worker', 'worker');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { processMetrics: false });
    const frames = feed(source, 'pg19beta3-worker').frames;
    expect(frames.at(-1)?.waits, 'the recording has idle io workers').toHaveProperty(['io worker:IoWorkerMain']);
    const samples = parseExposition((await exporter.scrape()) ?? '');
    const waits = samples.filter((s) => s.name.startsWith('aioscope_aio_waiting_processes'));
    expect(waits.map((s) => s.labels.wait_event)).not.toContain('IoWorkerMain');
    const newest = frames.at(-1)?.waits ?? {};
    const seen = [...new Set(frames.flatMap((frame) => Object.keys(frame.waits)))].filter(
      (key) => !key.endsWith(':IoWorkerMain'),
    );
    expect(
      waits
        .filter((s) => s.name === 'aioscope_aio_waiting_processes')
        .map((s) => [`${s.labels.backend_type}:${s.labels.wait_event}`, s.value])
        .sort(),
    ).toEqual(seen.map((key) => [key, newest[key] ?? 0]).sort());
    await exporter.close();
  });

  it('keeps reporting a wait event once seen, at 0 while no process is in it', async () => {
    let now = 1_000;
    const source = replay('pg19beta3-worker', 'worker');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { now: () => now, processMetrics: false });
    const frames = feed(source, 'pg19beta3-worker').frames;
    const waitKey = (s: Sample): string => `${s.labels.backend_type}:${s.labels.wait_event}`;
    const meanWaits = (samples: Sample[]): Sample[] =>
      samples.filter((s) => s.name === 'aioscope_aio_waiting_processes_mean');
    const during = meanWaits(parseExposition((await exporter.scrape()) ?? ''));
    expect(
      during.some((s) => s.value > 0),
      'the recording has processes in AIO waits',
    ).toBe(true);
    const last = frames.at(-1);
    if (last === undefined) throw new Error('no frames');
    now += 1_000;
    source.emitFrame({ ...last, t: last.t + 1_000, waits: {} });
    const after = parseExposition((await exporter.scrape()) ?? '');
    expect(meanWaits(after).map(waitKey).sort(), 'the same series, not gone stale').toEqual(during.map(waitKey).sort());
    expect(meanWaits(after).map((s) => s.value)).toEqual(during.map(() => 0));
    const latest = after.filter((s) => s.name === 'aioscope_aio_waiting_processes');
    expect(latest.map(waitKey).sort()).toEqual(during.map(waitKey).sort());
    expect(latest.every((s) => s.value === 0)).toBe(true);
    await exporter.close();
  });

  it('labels pg_stat_io read time by row like the reads, adding up to the deltas', async () => {
    const source = replay('pg18.6-io_uring', 'uring');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { processMetrics: false });
    const deltas = feed(source, 'pg18.6-io_uring').ioDeltas.filter((d) => !d.reset);
    const samples = parseExposition((await exporter.scrape()) ?? '');
    const times = samples.filter((s) => s.name === 'aioscope_pg_stat_io_read_time_seconds_total');
    const reads = samples.filter((s) => s.name === 'aioscope_pg_stat_io_reads_total');
    const rowOf = (s: Sample): string => `${s.labels.backend_type}/${s.labels.object}/${s.labels.context}`;
    expect(times.map(rowOf).sort()).toEqual(reads.map(rowOf).sort());
    expect(times.map(rowOf)).toContain('client backend/relation/bulkread');
    const total = deltas.reduce((sum, d) => sum + d.readTimeMs, 0) / 1000;
    expect(total, 'the recording waited on reads').toBeGreaterThan(0);
    expect(times.reduce((sum, s) => sum + s.value, 0)).toBeCloseTo(total, 6);
    await exporter.close();
  });

  it("names pg_aios's read counters as the sampled share, not throughput", async () => {
    const source = replay('pg19beta3-worker', 'worker');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { processMetrics: false });
    const frames = feed(source, 'pg19beta3-worker').frames;
    const text = (await exporter.scrape()) ?? '';
    const samples = parseExposition(text);
    const bytes = frames.reduce((sum, frame) => sum + (frame.newReads?.bytes ?? 0), 0);
    expect(bytes).toBeGreaterThan(0);
    expect(values(samples, 'aioscope_aios_sampled_read_bytes_total', 'worker')).toEqual([bytes]);
    expect(values(samples, 'aioscope_aios_sampled_reads_total', 'worker')).toHaveLength(1);
    expect(text).not.toContain('aioscope_aios_new_read');
    expect(text).toMatch(/# HELP aioscope_aios_sampled_read_bytes_total .*sampled share, not throughput/);
    await exporter.close();
  });

  it('gives a refused server its answered version in target_info, and no empty labels', async () => {
    const payloads = recording('pg15.18');
    expect(payloads.summary.server, 'a refused server has no server info').toBeNull();
    const source = new ReplaySource({ ...payloads.summary, id: 'old' }, payloads.audit, '15.18');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { processMetrics: false });
    const text = (await exporter.scrape()) ?? '';
    const info = parseExposition(text).filter((s) => s.name === 'aioscope_target_info');
    expect(info).toEqual([
      {
        name: 'aioscope_target_info',
        value: 1,
        labels: { target: 'old', target_name: 'pg15.18', kind: 'external', version: '15.18' },
      },
    ]);
    expect(text).not.toMatch(/=""/);
    await exporter.close();
  });

  it('drops newest-sample gauges once the sampler has gone quiet, and keeps the age', async () => {
    let now = 0;
    const source = replay('pg19beta3-worker', 'worker');
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { now: () => now, processMetrics: false });
    feed(source, 'pg19beta3-worker');
    now = LATEST_FRESH_MS + 1_000;
    const samples = parseExposition((await exporter.scrape()) ?? '');
    expect(values(samples, 'aioscope_reads_in_flight', 'worker')).toEqual([]);
    expect(values(samples, 'aioscope_last_sample_age_seconds', 'worker')).toEqual([(LATEST_FRESH_MS + 1_000) / 1000]);
    // The interval still reports the frames it saw; the next one has none and reports no max.
    expect(values(samples, 'aioscope_reads_in_flight_max', 'worker')).toEqual([15]);
    expect(values(parseExposition((await exporter.scrape()) ?? ''), 'aioscope_reads_in_flight_max', 'worker')).toEqual(
      [],
    );
    await exporter.close();
  });

  it('follows the monitor map: a removed target loses its series and its subscriptions', async () => {
    const a = replay('pg19beta3-worker', 'a');
    const b = replay('pg18.6-io_uring', 'b');
    const monitors = new Map([a, b].map((s) => [s.id, s]));
    const exporter = new MetricsExporter(monitors, { processMetrics: false });
    feed(a, 'pg19beta3-worker');
    feed(b, 'pg18.6-io_uring');
    expect(
      values(parseExposition((await exporter.scrape()) ?? ''), 'aioscope_sample_duration_seconds_count', 'b'),
    ).toEqual([62]);
    monitors.delete('b');
    const samples = parseExposition((await exporter.scrape()) ?? '');
    expect(samples.filter((s) => s.labels.target === 'b')).toEqual([]);
    expect(values(samples, 'aioscope_target_info', 'a')).toEqual([1]);
    expect(b.listenerCount()).toBe(0);
    await exporter.close();
    expect(a.listenerCount()).toBe(0);
  });

  it('reports audit rule states once read, reading the audit at most every 30 s', async () => {
    const source = replay('pg18.6-io_uring', 'uring');
    const eic = source.auditReport.findings.find((f) => f.rule === 'effective_io_concurrency_file_override');
    if (eic === undefined) throw new Error('recording has no effective_io_concurrency finding');
    Object.assign(eic, { level: 'warn', value: '1' });
    const exporter = new MetricsExporter(new Map([[source.id, source]]), { processMetrics: false });
    expect(parseExposition((await exporter.scrape()) ?? '').some((s) => s.name === 'aioscope_audit_rule_warning')).toBe(
      false,
    );
    await Promise.resolve();
    const samples = parseExposition((await exporter.scrape()) ?? '');
    const rule = samples.find((s) => s.name === 'aioscope_audit_rule_warning' && s.labels.rule === eic.rule);
    // Only the rule names the series: a setting that changes must not start a new one.
    expect(rule).toEqual({
      name: 'aioscope_audit_rule_warning',
      value: 1,
      labels: { target: 'uring', target_name: 'pg18.6-io_uring', rule: eic.rule, title: eic.title },
    });
    const info = samples.find((s) => s.name === 'aioscope_audit_rule_info' && s.labels.rule === eic.rule);
    expect(info).toMatchObject({ value: 1, labels: { title: eic.title, level: 'warn', value: '1' } });
    expect(samples.find((s) => s.labels.rule === 'track_io_timing')?.value).toBe(0);
    expect(source.auditReads).toBe(1);
    await exporter.close();
  });

  it(`keeps intervals for at most ${MAX_NAMED_SCRAPERS} named scrapers`, async () => {
    const exporter = new MetricsExporter(new Map(), { processMetrics: false });
    for (let i = 0; i < MAX_NAMED_SCRAPERS; i++) expect(await exporter.scrape(`prom-${i}`)).not.toBeNull();
    expect(await exporter.scrape('prom-0')).not.toBeNull();
    expect(await exporter.scrape('one-too-many')).toBeNull();
    await exporter.close();
  });

  it('passes promtool check metrics, process metrics included', async () => {
    const sources = recordedServers().map((server, i) => {
      const payloads = buildPayloads(server, `target-${i}`);
      const source = new ReplaySource(payloads.summary, payloads.audit);
      return { source, payloads };
    });
    const exporter = new MetricsExporter(new Map(sources.map(({ source }) => [source.id, source])));
    for (const { source, payloads } of sources) {
      payloads.frames.forEach((frame) => source.emitFrame(frame));
      payloads.ioDeltas.forEach((delta) => source.emitIoDelta(delta));
    }
    await exporter.scrape();
    await Promise.resolve();
    const exposition = (await exporter.scrape()) ?? '';
    expect(exposition).toContain('aioscope_audit_rule_warning{');
    expect(exposition).toContain('process_cpu_seconds_total');
    const check = promtool(['check', 'metrics'], exposition);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
    await exporter.close();
  });
});
