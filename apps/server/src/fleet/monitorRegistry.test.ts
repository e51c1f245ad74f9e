import { describe, expect, it } from 'vitest';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import type { FleetTarget } from '../targets/targetsFile.ts';
import { followMonitors, leastTakenPhase, MonitorRegistry } from './monitorRegistry.ts';

/** Just enough of a monitor to see it started and stopped; no database. */
function fakeMonitor(id: string, log: string[], phases: number[] = []): TargetMonitor {
  return {
    id,
    start: (phase = 0) => {
      log.push(`start ${id}`);
      phases.push(phase);
    },
    stop: () => Promise.resolve(void log.push(`stop ${id}`)),
    on: () => () => undefined,
    summary: () => ({ id, name: id, status: { state: 'live' } }),
  } as unknown as TargetMonitor;
}

const target = (name: string, host: string, labels: Record<string, string> = {}): FleetTarget => ({
  definition: { id: name, name, kind: 'external', clientConfig: { host, database: 'postgres' } },
  labels,
  rate: null,
});

describe('MonitorRegistry', () => {
  it('starts added targets, stops removed ones, restarts changed ones and keeps the rest', async () => {
    const log: string[] = [];
    const registry = new MonitorRegistry({
      defaultRate: 20,
      budgetShare: 0.01,
      log: () => undefined,
      create: (t) => fakeMonitor(t.definition.id, log),
    });
    const changes: string[] = [];
    registry.onChange((change) => changes.push(`${change.kind} ${change.monitor.id}`));
    await registry.apply([target('a', 'h1'), target('b', 'h2'), target('c', 'h3')]);
    const [a, b] = [registry.monitors.get('a'), registry.monitors.get('b')];
    log.length = 0;
    changes.length = 0;

    const result = await registry.apply([target('a', 'h1', { env: 'prod' }), target('c', 'h9'), target('d', 'h4')]);

    expect(result).toEqual({ added: ['c', 'd'], removed: ['b', 'c'], kept: ['a'] });
    expect(registry.monitors.get('a')).toBe(a); // a label change does not restart
    expect(registry.view('a')?.labels).toEqual({ env: 'prod' });
    expect(registry.monitors.has('b')).toBe(false);
    expect(b).toBeDefined();
    expect(log).toEqual(['stop b', 'stop c', 'start c', 'start d']);
    expect(changes).toEqual(['removed b', 'removed c', 'added c', 'added d']);
    expect([...registry.monitors.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('lists removed targets as no longer watched until they are added back', async () => {
    const registry = new MonitorRegistry({
      defaultRate: 20,
      budgetShare: 0.01,
      log: () => undefined,
      create: (t) => fakeMonitor(t.definition.id, []),
    });
    await registry.apply([target('a', 'h1'), target('b', 'h2')]);
    expect(registry.unwatched()).toEqual([]);
    await registry.apply([target('a', 'h1')]);
    expect(registry.unwatched().map((t) => [t.id, t.status.state, typeof t.unwatchedSince])).toEqual([
      ['b', 'live', 'number'],
    ]);
    // A changed target restarts: it was never unwatched for a reader of the list.
    await registry.apply([target('a', 'h9')]);
    expect(registry.unwatched().map((t) => t.id)).toEqual(['b']);
    await registry.apply([target('a', 'h9'), target('b', 'h2')]);
    expect(registry.unwatched()).toEqual([]);
  });

  it('lets a consumer follow every monitor, present and future, and detach from removed ones', async () => {
    const registry = new MonitorRegistry({
      defaultRate: 'auto',
      budgetShare: 0.01,
      log: () => undefined,
      create: (t) => fakeMonitor(t.definition.id, []),
    });
    await registry.apply([target('a', 'h1')]);
    const attached = new Set<string>();
    const stop = followMonitors(registry.monitors, registry, (monitor) => {
      attached.add(monitor.id);
      return () => attached.delete(monitor.id);
    });
    expect(registry.view('a')?.requested).toBe('auto');
    await registry.apply([target('b', 'h2')]);
    expect([...attached]).toEqual(['b']);
    stop();
    expect(attached.size).toBe(0);
    await registry.close();
    expect(registry.monitors.size).toBe(0);
  });
});

describe('leastTakenPhase', () => {
  it('shares the places on the interval evenly among any number of monitors', () => {
    for (const count of [4, 8, 20, 50]) {
      const taken: number[] = [];
      for (let n = 0; n < count; n++) taken.push(leastTakenPhase(taken));
      const perPlace = new Map<number, number>();
      for (const phase of taken) perPlace.set(phase, (perPlace.get(phase) ?? 0) + 1);
      expect([...perPlace.keys()].sort()).toEqual([0, 0.25, 0.5, 0.75]);
      for (const monitors of perPlace.values())
        expect(Math.abs(monitors - count / 4), `${count} monitors`).toBeLessThan(1);
    }
  });

  it('fills the place that removals emptied before doubling up elsewhere', () => {
    expect(leastTakenPhase([0, 0.5, 0.75])).toBe(0.25);
    expect(leastTakenPhase([0, 0.25, 0.5, 0.75, 0, 0.5])).toBe(0.25);
    expect(leastTakenPhase([])).toBe(0);
  });

  it('gives each monitor the registry starts the least taken phase, after removals too', async () => {
    const phases: number[] = [];
    const registry = new MonitorRegistry({
      defaultRate: 20,
      budgetShare: 0.01,
      log: () => undefined,
      create: (t) => fakeMonitor(t.definition.id, [], phases),
    });
    await registry.apply([target('a', 'h1'), target('b', 'h2'), target('c', 'h3'), target('d', 'h4')]);
    expect(phases).toEqual([0, 0.25, 0.5, 0.75]);
    // A reload drops b (at 0.25): the target added with it takes b's place, not 0 again.
    await registry.apply([target('a', 'h1'), target('c', 'h3'), target('d', 'h4'), target('e', 'h5')]);
    expect(phases).toEqual([0, 0.25, 0.5, 0.75, 0.25]);
    await registry.close();
  });
});
