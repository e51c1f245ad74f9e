import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { START_BUNDLE_DIR, ensureStartBuilt } from '../../apps/server/scripts/ensureStartBuilt.ts';
import { buildApp } from '../../apps/server/src/app/app.ts';
import { OpenedRecordings } from '../../apps/server/src/history/openedRecordings.ts';
import { RecordingIngestProcess } from '../../apps/server/src/history/recordingIngestProcess.ts';
import { SYNTHETIC_START, syntheticHistory } from '../../apps/server/src/history/recordingFileFixture.ts';
import { writeRecordingFile } from '../../apps/server/src/history/recordingFileWriter.ts';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { waitForFrame } from './aioscope.ts';
import { log, sleep, using, verdict, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { openScannedBenchCluster } from './postgres.ts';
import { fmtSummary, percentiles, summarize } from './stats.ts';

/** The hardening issue's goals for the largest file an export writes: 1 h at 100 Hz. */
const GOAL_OPEN_MS = 2_000;
const GOAL_ADDED_RSS_MB = 200;
/** The ingest process as shipped: the bundle's worker, not the sources through tsx (~30 MB more). */
const BUNDLED_INGEST_WORKER = path.join(START_BUNDLE_DIR, 'recordingIngestWorker.js');
/** A timer at the sampler's fastest rate: how late it fires is what a file's open costs the sampler. */
const PROBE_INTERVAL_MS = 10;

interface Case {
  label: string;
  durationMs: number;
  rateHz: number;
}

const CASES: Case[] = [
  { label: '10 min at 20 Hz', durationMs: 10 * 60_000, rateHz: 20 },
  { label: '1 h at 100 Hz', durationMs: 3_600_000, rateHz: 100 },
];

/** How late a 10 ms timer on this thread fires, p95 in ms, while `work` runs. */
async function timerLateness<T>(work: () => Promise<T>): Promise<{ result: T; p95: number; max: number }> {
  const lateness: number[] = [];
  let expected = performance.now() + PROBE_INTERVAL_MS;
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    lateness.push(now - expected);
    expected = now + PROBE_INTERVAL_MS;
    if (running) setTimeout(tick, PROBE_INTERVAL_MS);
  };
  setTimeout(tick, PROBE_INTERVAL_MS);
  try {
    const result = await work();
    return { result, ...latenessSummary(lateness) };
  } finally {
    running = false;
  }
}

function latenessSummary(values: number[]): { p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p95: sorted[Math.floor(sorted.length * 0.95)] ?? 0, max: sorted.at(-1) ?? 0 };
}

/**
 * `recording-open`: recording files (recorded frames repeated on a steady time line) opened as a
 * running aioscope opens a dropped file: checked whole in a child process into a database on disk,
 * then the first 15 minutes asked for as raw frames, as the page does first. Measured on this
 * thread: time to opened and to first frames, the RSS the process gains (peak, sampled every 20 ms)
 * plus the opening process's own peak, and how late a 10 ms timer fires during the open against the
 * same timer idle.
 */
export async function runRecordingOpen(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  await ensureStartBuilt(false);
  const folder = await mkdtemp(path.join(tmpdir(), 'aioscope-bench-recording-'));
  const rows: TableRow[] = [];
  const results: unknown[] = [];
  try {
    for (const { label, durationMs, rateHz } of CASES) {
      const file = path.join(folder, `${durationMs}-${rateHz}.aioscope.gz`);
      const range = { from: SYNTHETIC_START, to: SYNTHETIC_START + durationMs };
      const counts = await writeRecordingFile(syntheticHistory('embedded', { durationMs, rateHz }), range, file);
      const bytes = (await stat(file)).size;
      log(`recording-open: ${label}: ${counts.frames} frames, ${(bytes / 1e6).toFixed(2)} MB compressed`);
      const rounds = options.quick ? 2 : Math.max(3, Math.round(5 * options.roundsScale));
      const opens: number[] = [];
      const firsts: number[] = [];
      const addedRss: number[] = [];
      const firstRss: number[] = [];
      const childRss: number[] = [];
      const lateP95: number[] = [];
      const idleP95: number[] = [];
      // As aioscope does: one ingest process for every file, started before the first (round 0 pays
      // its start), running the shipped bundle's worker as `npm start` and `npx aioscope` do.
      const ingestProcess = new RecordingIngestProcess(undefined, BUNDLED_INGEST_WORKER);
      for (let round = 0; round < rounds; round++) {
        global.gc?.();
        idleP95.push((await timerLateness(() => new Promise((resolve) => setTimeout(resolve, 1_000)))).p95);
        // The file is checked in a child process: its peak RSS is memory the open adds too.
        let childPeakRss = 0;
        const recordings = new OpenedRecordings({
          ingestProcess,
          onIngested: (cost) => (childPeakRss = cost.peakRssBytes),
        });
        const { app } = await buildApp({ monitors: new Map(), recordings, webRoot: '/nonexistent' });
        const rssBefore = process.memoryUsage.rss();
        let rssPeak = rssBefore;
        const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 20);
        const started = performance.now();
        const { result: opened, p95 } = await timerLateness(async () => {
          const slot = recordings.reserve();
          if (slot === null) throw new Error('no slot');
          return recordings.open(slot, file, path.basename(file));
        });
        const openedAt = performance.now();
        const rssOpened = rssPeak;
        const firstRange = { from: range.from, to: Math.min(range.to, range.from + 15 * 60_000) };
        const response = await app.inject({
          method: 'GET',
          url: `/api/targets/${opened.targetId}/history/frames?from=${firstRange.from}&to=${firstRange.to}`,
        });
        const answered = performance.now();
        clearInterval(rssTimer);
        if (response.statusCode !== 200)
          throw new Error(`frames: HTTP ${response.statusCode} ${response.body.slice(0, 200)}`);
        await app.close();
        opens.push(openedAt - started);
        firsts.push(answered - openedAt);
        addedRss.push((rssOpened - rssBefore) / 1024 ** 2);
        firstRss.push((rssPeak - rssOpened) / 1024 ** 2);
        childRss.push(childPeakRss / 1024 ** 2);
        lateP95.push(p95);
      }
      ingestProcess.stop();
      results.push({
        label,
        counts,
        bytes,
        rounds,
        opensMs: opens,
        firstFramesMs: firsts,
        addedRss,
        firstRss,
        childRss,
        lateP95,
        idleP95,
        loadAverage: loadavg()[0],
      });
      const open = summarize(opens);
      // Both processes' memory counts: this one's growth until opened and the whole opening process
      // at its peak (kept for the next file, so all of it is the open's). Reading the first 15
      // minutes back is reported apart: any 15 min at 100 Hz costs that, recorded or opened.
      const rss = summarize(addedRss.map((added, index) => added + (childRss[index] ?? 0)));
      const large = durationMs >= 3_600_000;
      rows.push({
        measurement: 'recording-open',
        condition: `${label} (${counts.frames} frames, ${(bytes / 1e6).toFixed(1)} MB file)`,
        result:
          `opened in ${fmtSummary(open, 0)} ms, first 15 min of frames ${fmtSummary(summarize(firsts), 0)} ms more; ` +
          `RSS +${fmtSummary(rss, 0)} MB (this process +${fmtSummary(summarize(addedRss), 0)}, ` +
          `the opening process's peak ${fmtSummary(summarize(childRss), 0)}), reading the first 15 min ` +
          `+${fmtSummary(summarize(firstRss), 0)} MB more; 10 ms timer late p95 ` +
          `${fmtSummary(summarize(lateP95), 1)} ms (idle ${fmtSummary(summarize(idleP95), 1)} ms); load average ` +
          `${loadavg()[0]?.toFixed(1) ?? '?'}`,
        target: large ? `≤ ${GOAL_OPEN_MS / 1000} s, ≤ ${GOAL_ADDED_RSS_MB} MB added` : '–',
        verdict: large ? verdict(open.median <= GOAL_OPEN_MS && rss.median <= GOAL_ADDED_RSS_MB) : 'n/a',
      });
    }
    const largest = CASES.at(-1);
    if (largest !== undefined) {
      const file = path.join(folder, `${largest.durationMs}-${largest.rateHz}.aioscope.gz`);
      const jitter = await samplerJitterDuringOpens(options, parent, file);
      results.push({ samplerJitter: jitter.windows });
      rows.push(jitter.row);
    }
    writeResult('recording-open', results);
    return rows;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const SAMPLER_RATE_HZ = 100;

/**
 * 'opening, new process': a process started for each file, as before the kept one (its start forks
 * this process, blocking its thread); 'opening': the one kept process of aioscope.
 */
type JitterCondition = 'idle' | 'opening' | 'opening, new process';

interface JitterWindow {
  condition: JitterCondition;
  frames: number;
  /** |interval − period| on the server's clock and at delivery to this thread, p95, ms. */
  serverJitterP95: number;
  deliveryJitterP95: number;
  skippedTicks: number;
  /** How late a 10 ms timer on this thread fired: p95 and the largest, ms (a fork shows in the max). */
  timerLateP95: number;
  timerLateMax: number;
}

/**
 * The sampler itself, at 100 Hz on the bench cluster during its cold scans, in windows that
 * alternate between nothing else and opening the 1-hour file: the jitter a user's live view has
 * while a file opens, against the same sampler a moment before.
 */
async function samplerJitterDuringOpens(
  options: BenchOptions,
  parent: Cleanups,
  file: string,
): Promise<{ row: TableRow; windows: JitterWindow[] }> {
  return using(async (cleanups) => {
    const { definition } = await openScannedBenchCluster(cleanups);
    const monitor = new TargetMonitor(definition, { sampleRateHz: SAMPLER_RATE_HZ, demoWorkload: false });
    cleanups.add('jitter monitor', () => monitor.stop());
    monitor.start();
    await waitForFrame(monitor, 10_000);
    await sleep(1_000);
    const kept = new RecordingIngestProcess(undefined, BUNDLED_INGEST_WORKER);
    cleanups.add('kept ingest process', () => kept.stop());
    const recordings = new OpenedRecordings({ ingestProcess: kept });
    cleanups.add('opened recordings', () => recordings.closeAll());
    // Started (and its first file opened) before any window: aioscope's first file pays that once.
    await openAndClose(recordings, file);
    const windows: JitterWindow[] = [];
    const rounds = options.quick ? 1 : Math.max(2, Math.round(3 * options.roundsScale));
    const period = 1000 / SAMPLER_RATE_HZ;
    const orders: JitterCondition[][] = [
      ['idle', 'opening', 'opening, new process'],
      ['opening, new process', 'opening', 'idle'],
    ];
    for (let round = 0; round < rounds; round++) {
      let openMs = 5_000;
      for (const condition of orders[round % 2] ?? []) {
        const times: number[] = [];
        const delivered: number[] = [];
        const skippedBefore = monitor.currentStatus().skippedTicks;
        const off = monitor.on('frame', (frame) => {
          times.push(frame.t);
          delivered.push(performance.now());
        });
        const { p95: timerLateP95, max: timerLateMax } = await timerLateness(async () => {
          if (condition === 'idle') return sleep(openMs);
          const started = performance.now();
          if (condition === 'opening') await openAndClose(recordings, file);
          else {
            const fresh = new RecordingIngestProcess(undefined, BUNDLED_INGEST_WORKER);
            const once = new OpenedRecordings({ ingestProcess: fresh });
            try {
              await openAndClose(once, file);
            } finally {
              fresh.stop();
              await once.closeAll();
            }
          }
          openMs = performance.now() - started;
        });
        off();
        const gaps = (values: number[]): number[] =>
          values.slice(1).map((value, index) => Math.abs(value - (values[index] ?? value) - period));
        windows.push({
          condition,
          frames: times.length,
          serverJitterP95: percentiles(gaps(times)).p95,
          deliveryJitterP95: percentiles(gaps(delivered)).p95,
          skippedTicks: monitor.currentStatus().skippedTicks - skippedBefore,
          timerLateP95,
          timerLateMax,
        });
        log(`recording-open jitter, ${condition}: ${JSON.stringify(windows.at(-1))}`);
      }
    }
    const of = (get: (window: JitterWindow) => number): string =>
      (['opening', 'opening, new process', 'idle'] as const)
        .map((condition) => fmtSummary(summarize(windows.filter((w) => w.condition === condition).map(get)), 1))
        .join(' / ');
    return {
      windows,
      row: {
        measurement: 'recording-open',
        condition:
          `sampler at ${SAMPLER_RATE_HZ} Hz during cold scans, while the 1 h file opens in the kept process / ` +
          'in a process started for it / not opening',
        result:
          `jitter p95 on the server clock ${of((w) => w.serverJitterP95)} ms; at delivery ${of((w) => w.deliveryJitterP95)} ms; ` +
          `skipped ticks ${of((w) => w.skippedTicks)}; this thread's 10 ms timer late at most ${of((w) => w.timerLateMax)} ms; ` +
          `load average ${loadavg()[0]?.toFixed(1) ?? '?'}`,
        target: 'unchanged',
        verdict: 'n/a',
      },
    };
  }, parent);
}

async function openAndClose(recordings: OpenedRecordings, file: string): Promise<void> {
  const slot = recordings.reserve();
  if (slot === null) throw new Error('no slot');
  const opened = await recordings.open(slot, file, 'jitter.aioscope.gz');
  recordings.close(opened.targetId);
}
