import type { LiveFrame } from '@aioscope/spec';
import { TargetMonitor } from '../../apps/server/src/sampler/targetMonitor.ts';
import type { TargetDefinition } from '../../apps/server/src/targets/target.ts';
import { waitForFrame } from './aioscope.ts';
import {
  log,
  rotated,
  using,
  verdict,
  writeResult,
  type BenchOptions,
  type Cleanups,
  type TableRow,
} from './common.ts';
import { SCAN_SQL, openBenchCluster } from './postgres.ts';
import { fmt, fmtSummary, median, summarize } from './stats.ts';

/** 'none' twice: the second is an A/A control that shows the noise floor of the ratio. */
type Condition = 'none' | 'none (A/A)' | 20 | 50 | 100;
const CONDITIONS: Condition[] = ['none', 20, 50, 100, 'none (A/A)'];
const TARGET_RATIO = 1.01;

interface Trial {
  round: number;
  condition: Condition;
  scanMs: number;
  osResidencyBefore: number;
  framesDuringScan: number;
  skippedTicks: number;
}

/**
 * Observer effect: one cold sequential scan of the 512 MB table (8× shared_buffers), timed with no
 * sampler and with a TargetMonitor at 20/50/100 Hz. Conditions are interleaved in rotated order
 * within each round; each round gives a ratio scan(rate) / scan(none) from the same few seconds.
 */
export async function runObserver(options: BenchOptions, parent: Cleanups): Promise<TableRow[]> {
  return using(async (cleanups) => {
    const { server, table, scanner } = await openBenchCluster(cleanups);
    const definition: TargetDefinition = {
      id: 'embedded',
      name: 'bench',
      kind: 'embedded',
      clientConfig: server.connectionConfig,
    };
    const rounds = Math.max(2, Math.round((options.quick ? 6 : 40) * options.roundsScale));
    log(`observer: ${rounds} rounds × ${CONDITIONS.length} conditions, cold scan of ${table.name}`);

    for (let i = 0; i < 2; i++) {
      await scanner.makeCold();
      await scanner.scan(); // warm-up: first scans after start are slower (catalog, workers starting)
    }

    const trials: Trial[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const condition of rotated(CONDITIONS, round)) {
        const osResidencyBefore = await scanner.makeCold();
        let monitor: TargetMonitor | null = null;
        let frames = 0;
        let off: (() => void) | undefined;
        let detach: (() => void) | undefined;
        try {
          if (typeof condition === 'number') {
            const started = new TargetMonitor(definition, { sampleRateHz: condition, demoWorkload: false });
            monitor = started;
            detach = cleanups.add('observer monitor', () => started.stop());
            started.start();
            await waitForFrame(started, 10_000); // connected and sampling before the scan starts
          }
          const skippedBefore = monitor?.currentStatus().skippedTicks ?? 0;
          off = monitor?.on('frame', (_frame: LiveFrame) => frames++);
          const scanMs = await scanner.scan();
          trials.push({
            round,
            condition,
            scanMs,
            osResidencyBefore,
            framesDuringScan: frames,
            skippedTicks: (monitor?.currentStatus().skippedTicks ?? 0) - skippedBefore,
          });
        } finally {
          off?.();
          if (monitor !== null) await monitor.stop();
          detach?.();
        }
      }
      const line = CONDITIONS.map(
        (c) => `${String(c)}=${fmt(trials.find((t) => t.round === round && t.condition === c)?.scanMs ?? NaN, 0)}`,
      ).join(' ');
      log(`observer round ${round + 1}/${rounds}: scan ms ${line}`);
    }

    const scanOf = (round: number, condition: Condition): number =>
      trials.find((trial) => trial.round === round && trial.condition === condition)?.scanMs ?? NaN;
    const ratios = (condition: Condition): number[] =>
      Array.from({ length: rounds }, (_, round) => scanOf(round, condition) / scanOf(round, 'none'));
    const perCondition = CONDITIONS.map((condition) => {
      const own = trials.filter((trial) => trial.condition === condition);
      return {
        condition,
        scanMs: summarize(own.map((trial) => trial.scanMs)),
        ratio: condition === 'none' ? null : summarize(ratios(condition)),
        /** A second estimator, robust to a noisy round: median scan time / median scan time without sampler. */
        ratioOfMedians:
          median(own.map((trial) => trial.scanMs)) /
          median(trials.filter((trial) => trial.condition === 'none').map((trial) => trial.scanMs)),
        achievedHzDuringScan:
          typeof condition === 'number'
            ? summarize(own.map((trial) => trial.framesDuringScan / (trial.scanMs / 1000)))
            : null,
        skippedTicks: own.reduce((sum, trial) => sum + trial.skippedTicks, 0),
      };
    });
    const ratioAt = (condition: Condition) => perCondition.find((c) => c.condition === condition)?.ratio ?? null;
    const at100 = ratioAt(100);
    const aa = ratioAt('none (A/A)');
    writeResult('observer', {
      measurement: 'observer effect: cold seq scan of a 512 MB table, shared_buffers 64 MB',
      sql: `SET max_parallel_workers_per_gather = 0; ${SCAN_SQL}`,
      tableBytes: table.relationBytes,
      rounds,
      order: 'conditions rotated per round',
      perCondition,
      target: { ratioAt100HzMedianMax: TARGET_RATIO },
      met: at100 === null ? null : at100.median <= TARGET_RATIO,
      trials,
    });
    const none = perCondition[0]?.scanMs;
    const result = [
      `scan ${none === undefined ? '–' : fmtSummary(none, 0)} ms without sampler`,
      ...([20, 50, 100] as const).map((rate) => {
        const ratio = ratioAt(rate);
        const ofMedians = perCondition.find((c) => c.condition === rate)?.ratioOfMedians ?? NaN;
        return `${rate} Hz ×${ratio === null ? '–' : fmtSummary(ratio, 3)} [ratio of medians ×${fmt(ofMedians, 3)}]`;
      }),
      `A/A ×${aa === null ? '–' : fmtSummary(aa, 3)}`,
    ].join('; ');
    return [
      {
        measurement: '1. observer effect',
        condition: `${rounds} interleaved rounds, cold 512 MB seq scan; median of per-round ratios (min–max)`,
        result,
        target: `median ratio ≤ ${TARGET_RATIO} at 100 Hz`,
        verdict: verdict(at100 === null ? null : at100.median <= TARGET_RATIO),
      },
    ];
  }, parent);
}
