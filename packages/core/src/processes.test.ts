import { describe, expect, it } from 'vitest';
import {
  buildLiveFrame,
  parseFastTickRow,
  parseProcessDetails,
  withDetails,
  type FastTickQueryRow,
  type ProcessDetails,
  type ProcessDetailsQueryRow,
} from './fastTick.ts';
import { buildProcessViews } from './processes.ts';
import { loadFixture } from './testFixtures.ts';

type RecordedTick = FastTickQueryRow & { details: ProcessDetailsQueryRow[] };
const fixture = loadFixture<{ duringScan: RecordedTick[] }>('pg18-fast-tick.json');

function detailsOf(row: RecordedTick): Map<number, ProcessDetails> {
  const parsed = row.details.map(parseProcessDetails).filter((details) => details !== null);
  return new Map(parsed.map((details) => [details.pid, details]));
}
const settings = { effectiveIoConcurrency: 16, maintenanceIoConcurrency: 16, ioMaxConcurrency: 64 };

describe('buildProcessViews (recorded on PostgreSQL 18)', () => {
  it('lists the scanning backend with its reads in flight and every io worker', () => {
    const row = fixture.duringScan.find((r) => Array.isArray(r.aios) && (r.aios as unknown[]).length > 0);
    const sample = parseFastTickRow(row as FastTickQueryRow);
    const { frame } = buildLiveFrame(sample, {
      previousIoKeys: new Set(),
      sampleMs: 1,
      skippedTicks: 0,
      ioMethod: 'worker',
    });
    const views = buildProcessViews(
      withDetails(sample.processes, detailsOf(row as RecordedTick)),
      frame.byProcess,
      settings,
    );
    const backend = views.find((v) => v.backendType === 'client backend');
    expect(backend?.readsInFlight).toBeGreaterThan(0);
    expect(backend?.limit).toEqual({ name: 'effective_io_concurrency', value: 16 });
    expect(backend?.queryPreview).toMatch(/count\(\*\)/);
    expect(backend?.activity).toBe('SELECT');
    expect(views.filter((v) => v.backendType === 'io worker')).toHaveLength(3);
    expect(views[0]?.readsInFlight).toBe(Math.max(...views.map((v) => v.readsInFlight)));
  });

  it('shows a process read before its details as unknown, not as another process', () => {
    const row = fixture.duringScan.find((r) => Array.isArray(r.aios) && (r.aios as unknown[]).length > 0);
    const sample = parseFastTickRow(row as FastTickQueryRow);
    const { frame } = buildLiveFrame(sample, {
      previousIoKeys: new Set(),
      sampleMs: 1,
      skippedTicks: 0,
      ioMethod: 'worker',
    });
    const views = buildProcessViews(withDetails(sample.processes, new Map()), frame.byProcess, settings);
    const backend = views.find((v) => v.backendType === 'client backend');
    expect(backend?.readsInFlight).toBeGreaterThan(0);
    expect(backend?.queryPreview).toBeNull();
    expect(backend?.database).toBeNull();
    expect(backend?.queryStart).toBe(sample.processes.find((p) => p.pid === backend?.pid)?.queryStart);
  });

  it('uses maintenance_io_concurrency for VACUUM', () => {
    const views = buildProcessViews(
      [
        {
          pid: 7,
          backendType: 'client backend',
          waitEventType: 'IO',
          waitEvent: 'AioIoCompletion',
          databaseOid: 5,
          database: 'postgres',
          user: 'u',
          state: 'active',
          queryStart: 1,
          queryPreview: 'VACUUM big',
          leaderPid: null,
        },
      ],
      { 7: [3, 3 * 131072] },
      { ...settings, maintenanceIoConcurrency: 10 },
    );
    expect(views[0]?.limit).toEqual({ name: 'maintenance_io_concurrency', value: 10 });
    expect(views[0]?.bytesInFlight).toBe(3 * 131072);
  });
});
