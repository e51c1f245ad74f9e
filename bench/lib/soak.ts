import v8 from 'node:v8';
import vm from 'node:vm';
import { RECENT_FRAMES_SECONDS } from '../../apps/server/src/sampler/targetMonitor.ts';
import { startBenchAioscope } from './aioscope.ts';
import { log, sleep, using, verdict, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { processRssBytes } from './proc.ts';
import { fmt } from './stats.ts';
import { ViewerPool } from './viewerPool.ts';

const SOAK_RATE_HZ = 100;
const TARGET_DRIFT = 0.1;

/** A gc() for this process without restarting node with --expose-gc. */
function exposeGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

interface SoakSample {
  minute: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapUsedAfterGcBytes: number;
  externalBytes: number;
  frames: number;
  skippedTicks: number;
  scans: number;
}

/**
 * Soak: aioscope in-process at 100 Hz with one viewer and scans running for N minutes; RSS and
 * heap every minute. Baseline: the first sample once the 120 s frame history is full (minute 3),
 * or minute 1 in soaks shorter than 4 minutes. Every later sample must stay within ±10 % of it.
 */
export async function runSoak(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  const minutes = options.soakMinutes ?? 5;
  return using(async (cleanups) => {
    const gc = exposeGc();
    const app = await startBenchAioscope(SOAK_RATE_HZ, cleanups);
    const pool = await ViewerPool.start(cleanups);
    await pool.setViewers(app.url, 1);
    let frames = 0;
    const off = app.monitor.on('frame', () => frames++);
    cleanups.add('soak frame counter', off);
    const samples: SoakSample[] = [];
    const sample = (minute: number): SoakSample => {
      const before = process.memoryUsage();
      gc();
      const after = process.memoryUsage();
      const taken: SoakSample = {
        minute,
        rssBytes: processRssBytes() ?? after.rss,
        heapUsedBytes: before.heapUsed,
        heapUsedAfterGcBytes: after.heapUsed,
        externalBytes: after.external,
        frames,
        skippedTicks: app.monitor.currentStatus().skippedTicks,
        scans: app.scans.scans,
      };
      samples.push(taken);
      log(
        `soak minute ${minute}/${minutes}: RSS ${fmt(taken.rssBytes / 1024 ** 2)} MB, heap after GC ${fmt(taken.heapUsedAfterGcBytes / 1024 ** 2)} MB, ` +
          `${taken.frames} frames, ${taken.skippedTicks} skipped`,
      );
      return taken;
    };
    log(`soak: ${minutes} min at ${SOAK_RATE_HZ} Hz, 1 viewer, cold scans in a loop`);
    sample(0);
    for (let minute = 1; minute <= minutes; minute++) {
      await sleep(60_000);
      sample(minute);
    }
    const baselineMinute = minutes >= 4 ? Math.ceil(RECENT_FRAMES_SECONDS / 60) + 1 : 1;
    const baseline = samples.find((s) => s.minute === baselineMinute) ?? (samples[0] as SoakSample);
    const later = samples.filter((s) => s.minute > baseline.minute);
    const drift = (get: (s: SoakSample) => number): number =>
      later.reduce((worst, s) => Math.max(worst, Math.abs(get(s) - get(baseline)) / get(baseline)), 0);
    const rssDrift = drift((s) => s.rssBytes);
    const heapDrift = drift((s) => s.heapUsedAfterGcBytes);
    const last = samples[samples.length - 1] as SoakSample;
    const met = later.length === 0 ? null : rssDrift <= TARGET_DRIFT && heapDrift <= TARGET_DRIFT;
    writeResult('soak', {
      measurement: 'soak: server RSS and heap every minute, aioscope in-process',
      rateHz: SOAK_RATE_HZ,
      minutes,
      baselineMinute: baseline.minute,
      maxDrift: { rss: rssDrift, heapAfterGc: heapDrift },
      target: { maxDrift: TARGET_DRIFT },
      met,
      samples,
    });
    const mb = (bytes: number): string => fmt(bytes / 1024 ** 2, 1);
    return [
      {
        measurement: '6. soak',
        condition: `${minutes} min at ${SOAK_RATE_HZ} Hz, 1 viewer, scans running (baseline minute ${baseline.minute})`,
        result:
          `RSS ${mb(baseline.rssBytes)} → ${mb(last.rssBytes)} MB (max drift ${fmt(100 * rssDrift)} %); ` +
          `heap after GC ${mb(baseline.heapUsedAfterGcBytes)} → ${mb(last.heapUsedAfterGcBytes)} MB (max drift ${fmt(100 * heapDrift)} %); ` +
          `${last.skippedTicks} skipped ticks`,
        target: 'flat ±10 %',
        verdict: verdict(met),
      },
    ];
  }, parent);
}
