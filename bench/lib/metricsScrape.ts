import Fastify from 'fastify';
import { registerMetricsRoute } from '../../apps/server/src/metrics/metricsRoute.ts';
import { ReplaySource } from '../../apps/server/src/metrics/replaySource.ts';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import type { BenchAioscope } from './aioscope.ts';
import { log, sleep, verdict, writeResult, type BenchOptions, type TableRow } from './common.ts';
import { fmtSummary, summarize } from './stats.ts';

/** Issue 13's goal: a scrape of 20 targets within 50 ms. */
const GOAL_MS = 50;
const SYNTHETIC_TARGETS = 20;
/** Prometheus's default scrape interval: what the per-scrape roll-ups hold between two scrapes. */
const SCRAPE_INTERVAL_S = 15;
const RATE_HZ = 20;

/**
 * 20 targets fed recorded frames (the worker and io_uring recordings, times shifted) through the
 * same emitter a monitor uses, behind the metrics route alone: between two timed scrapes
 * each target receives a 15 s scrape interval's worth of 20 Hz frames and 1 Hz pg_stat_io deltas.
 */
async function syntheticRounds(rounds: number): Promise<{ scrapeMs: number[]; feedNsPerFrame: number[] }> {
  const recordings = recordedServers()
    .map((server) => buildPayloads(server))
    .filter((payloads) => payloads.frames.length > 10);
  const sources = Array.from({ length: SYNTHETIC_TARGETS }, (_, i) => {
    const payloads = recordings[i % recordings.length] ?? recordings[0];
    if (payloads === undefined) throw new Error('no recorded frames');
    const source = new ReplaySource({ ...payloads.summary, id: `t${i}`, name: `target ${i}` }, payloads.audit);
    return { source, payloads };
  });
  // The metrics route alone: the live hub's own per-frame work is not what this row measures.
  const app = Fastify();
  registerMetricsRoute(app, new Map(sources.map(({ source }) => [source.id, source])));
  await app.ready();
  const scrapeMs: number[] = [];
  const feedNsPerFrame: number[] = [];
  let t = Date.now();
  try {
    for (let round = 0; round <= rounds; round++) {
      const feedStarted = process.hrtime.bigint();
      let fed = 0;
      for (let tick = 0; tick < SCRAPE_INTERVAL_S * RATE_HZ; tick++) {
        t += 1000 / RATE_HZ;
        for (const { source, payloads } of sources) {
          const frame = payloads.frames[tick % payloads.frames.length];
          if (frame !== undefined) source.emitFrame({ ...frame, t });
          fed++;
          const delta = payloads.ioDeltas[0];
          if (tick % RATE_HZ === 0 && delta !== undefined) source.emitIoDelta({ ...delta, t });
        }
      }
      const feedNs = Number(process.hrtime.bigint() - feedStarted);
      // Frames really arrive over 15 s: let the garbage of a 15 s burst be collected before timing.
      await sleep(200);
      const started = performance.now();
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      const elapsed = performance.now() - started;
      if (response.statusCode !== 200) throw new Error(`/metrics: HTTP ${response.statusCode}`);
      // Round 0 warms up (the audit reads start, the JIT compiles the writers).
      if (round > 0) {
        scrapeMs.push(elapsed);
        feedNsPerFrame.push(feedNs / fed);
      }
    }
  } finally {
    await app.close();
  }
  return { scrapeMs, feedNsPerFrame };
}

/** `metrics`: GET /metrics on the shared aioscope (one live target) and with 20 replayed targets. */
export async function runMetricsScrape(options: BenchOptions, shared: BenchAioscope): Promise<TableRow[]> {
  const rounds = options.quick ? 5 : Math.round(20 * options.roundsScale);
  const liveMs: number[] = [];
  let bodyBytes = 0;
  for (let round = 0; round <= rounds; round++) {
    await sleep(1_000); // a second of 20 Hz frames between scrapes, as a fast scraper would see
    const started = performance.now();
    const response = await fetch(new URL('/metrics', shared.url));
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (!response.ok || !body.includes('aioscope_samples_total')) {
      throw new Error(`/metrics: HTTP ${response.status}, not an exposition: ${body.slice(0, 100)}`);
    }
    bodyBytes = body.length;
    if (round > 0) liveMs.push(elapsed);
  }
  log(`metrics: one live target, ${rounds} scrapes, ${bodyBytes} bytes each`);
  const synthetic = await syntheticRounds(rounds);
  const live = summarize(liveMs);
  const twenty = summarize(synthetic.scrapeMs);
  const feed = summarize(synthetic.feedNsPerFrame);
  writeResult('metrics', { rounds, bodyBytes, liveMs, synthetic });
  return [
    {
      measurement: 'metrics',
      condition: `GET /metrics over HTTP, 1 live target at ${shared.rateHz} Hz (process metrics included, ${Math.round(bodyBytes / 1024)} kB)`,
      result: `${fmtSummary(live, 1)} ms`,
      target: `≤ ${GOAL_MS} ms`,
      verdict: verdict(live.median <= GOAL_MS),
    },
    {
      measurement: 'metrics',
      condition: `${SYNTHETIC_TARGETS} replayed targets, ${SCRAPE_INTERVAL_S} s of ${RATE_HZ} Hz frames each between scrapes (/metrics route alone, app.inject)`,
      result: `${fmtSummary(twenty, 1)} ms per scrape; folding a frame ${fmtSummary(feed, 0)} ns`,
      target: `≤ ${GOAL_MS} ms`,
      verdict: verdict(twenty.median <= GOAL_MS),
    },
  ];
}
