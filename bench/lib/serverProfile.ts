import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { REPO_ROOT } from '../../apps/server/src/config/config.ts';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import { waitForFrame } from './aioscope.ts';
import { log, sleep, using, writeResult, type BenchOptions, type Cleanups, type TableRow } from './common.ts';
import { briefRanking, summarizeProfile, type CpuProfile, type ProfileNode } from './cpuProfile.ts';
import { openScannedBenchCluster } from './postgres.ts';
import { SelfCpuMeter } from './proc.ts';
import { fmt } from './stats.ts';

const RATE_HZ = 100;

/** A project path (apps/…, packages/…), a package name, '(node)' for node internals, or '(native)'. */
export function moduleOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return '(node)';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (packageMatch?.[1] !== undefined) return packageMatch[1];
  return path.relative(REPO_ROOT, file);
}

/**
 * Diagnostic, not a target: a CPU profile of this process while a TargetMonitor samples at 100 Hz
 * during cold scans (node:inspector, 0.5 ms sampling). Where the sampler's node-side time goes.
 * apps/server/src/demo/* in it is the bench's own load (evicting the table between scans).
 */
export async function runServerProfile(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { definition } = await openScannedBenchCluster(cleanups);
    const monitor = new TargetMonitor(definition, { sampleRateHz: RATE_HZ, demoWorkload: false });
    cleanups.add('profiled monitor', () => monitor.stop());
    monitor.start();
    await waitForFrame(monitor, 10_000);
    await sleep(2_000);
    const seconds = options.quick ? 6 : 15;
    log(`server profile: TargetMonitor at ${RATE_HZ} Hz for ${seconds} s ...`);
    const session = new Session();
    session.connect();
    cleanups.add('inspector session', () => session.disconnect());
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    let frames = 0;
    const off = monitor.on('frame', () => frames++);
    const meter = new SelfCpuMeter();
    await session.post('Profiler.start');
    await sleep(seconds * 1000);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const cpu = meter.read();
    off();
    session.disconnect();
    const summary = summarizeProfile(profile, moduleOf);
    const busyMs = summary.sampledMs * (1 - summary.idleShare);
    const result = {
      measurement: `CPU profile of the aioscope process, TargetMonitor at ${RATE_HZ} Hz during cold scans (diagnostic)`,
      rateHz: RATE_HZ,
      seconds,
      frames,
      processCpuPercent: cpu.percentOfCore,
      mainThreadBusyMsPerFrame: busyMs / frames,
      ...summary,
    };
    writeResult('server-profile', result);
    return [
      {
        measurement: '2b. server CPU profile (diagnostic)',
        condition: `TargetMonitor at ${RATE_HZ} Hz in this process, ${seconds} s, scans running`,
        result:
          `process ${fmt(cpu.percentOfCore)} % of a core; main thread ${fmt(busyMs / frames, 2)} ms per frame; ` +
          `by module: ${briefRanking(summary.selfByModule, 6)}; project code inclusive: ${briefRanking(summary.inclusiveAppFunctions, 6)}`,
        target: '–',
        verdict: 'n/a',
      },
    ];
  }, parent);
}
