import { TargetMonitor } from './targetMonitor.ts';

/**
 * A monitor for route tests: never started, it answers summary() and connects to nothing, so a
 * route sees a watched target without a database behind it.
 */
export function unstartedMonitor(id: string): TargetMonitor {
  return new TargetMonitor(
    { id, name: id, kind: 'external', clientConfig: { host: '127.0.0.1', port: 1 } },
    { sampleRateHz: 20, demoWorkload: false },
  );
}
