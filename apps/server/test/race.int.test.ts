import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raceSchema, type Race } from '@aioscope/spec';
import { buildApp } from '../src/app/app.ts';
import { readRecording } from '../src/history/recordingFileReader.ts';
import { LabService } from '../src/lab/labService.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../src/targets/target.ts';
import { embeddedTarget, startTestPostgres, TEST_DATA_ROOT } from './support/testPostgres.ts';

const RESULTS = path.join(TEST_DATA_ROOT, 'race-results');
/** Table size for the race: set by AIOSCOPE_RACE_TABLE_MB when measuring, small by default to keep the test short. */
const TABLE_MB = Number(process.env.AIOSCOPE_RACE_TABLE_MB ?? 64);

describe('race capture on a real embedded PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let lab: LabService;
  let built: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    await rm(RESULTS, { recursive: true, force: true });
    server = await startTestPostgres('race');
    const target: TargetDefinition = embeddedTarget(server);
    lab = new LabService({ target, embedded: server, resultsDir: RESULTS, allowExternal: false });
    built = await buildApp({ monitors: new Map(), webRoot: '/nonexistent', lab });
  });

  afterAll(async () => {
    await built?.app.close();
    await lab?.cancel();
    await server?.stop();
  });

  it('captures both lanes of a 2 × 1 race at 100 Hz, and the export opens with the recording reader', async () => {
    const started = await built.app.inject({
      method: 'POST',
      url: '/api/race',
      payload: {
        tableMb: TABLE_MB,
        cacheState: 'cold',
        rounds: 1,
        variants: [
          { name: 'icl=1', session: { io_combine_limit: 1 } },
          { name: 'icl=16', session: { io_combine_limit: 16 } },
        ],
      },
    });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json<{ id: string }>();
    await lab.settled();

    const answer = await built.app.inject({ method: 'GET', url: `/api/race/${id}` });
    expect(answer.statusCode).toBe(200);
    const race: Race = raceSchema.parse(answer.json());
    expect(race.experiment.status, race.experiment.error ?? '').toBe('done');
    expect(race.captures).toBe('kept');
    expect(race.lanes.map((lane) => lane.variant)).toEqual(['icl=1', 'icl=16']);
    for (const lane of race.lanes) {
      expect(lane.captureError).toBeNull();
      expect(lane.run).not.toBeNull();
      // Bracketing samples plus the ones in between: never fewer than two.
      expect(lane.frames.length).toBeGreaterThanOrEqual(2);
      expect(lane.endT).toBeGreaterThan(lane.startT);
      expect(lane.readsSeen).toBeGreaterThan(0);
      // Only the run's backend is kept.
      for (const frame of lane.frames) {
        expect(Object.keys(frame.byProcess).every((pid) => Number(pid) === lane.pid)).toBe(true);
        expect(frame.scans).toBeDefined();
        // The lane's map is the raced table's scan alone, whatever else the session read.
        const names = (frame.scans ?? []).map((scan) => scan.relation.name ?? 'unnamed');
        expect(names.filter((name) => !name.includes('aioscope_lab'))).toEqual([]);
      }
      const lastScan = lane.frames.findLast((frame) => (frame.scans ?? []).length > 0)?.scans?.[0];
      expect(lastScan?.relation.name).toMatch(/aioscope_lab/);
      const span = lane.endT - lane.startT;
      const rate = (lane.frames.length - 1) / (span / 1000);
      console.log(
        `race lane ${lane.variant}: ${lane.run?.executionMs.toFixed(1)} ms, ${lane.frames.length} frames over ${span.toFixed(0)} ms (${rate.toFixed(0)} Hz), ` +
          `reads seen ${lane.readsSeen} of ${lane.run?.reads} (${((lane.seenShare ?? 0) * 100).toFixed(1)} %), ` +
          `blocks/read ${lane.blocksPerRead?.toFixed(2)}, last progress ${lastScan?.progress?.toFixed(2)}`,
      );
    }
    const [one, sixteen] = race.lanes;
    expect(one?.blocksPerRead).toBeLessThan(1.5);
    expect(sixteen?.blocksPerRead).toBeGreaterThan(8);

    const exported = await built.app.inject({ method: 'GET', url: `/api/race/${id}/export` });
    expect(exported.statusCode, exported.body).toBe(200);
    const recording = await readRecording(exported.rawPayload);
    expect(recording.frames.length).toBe(race.lanes.reduce((sum, lane) => sum + lane.frames.length, 0));
    expect(recording.events.filter((event) => event.kind === 'labRunStarted').map((event) => event.message)).toEqual([
      'race lane icl=1, round 1',
      'race lane icl=16, round 1',
    ]);
  });

  it('refuses an unknown preset naming the presets, and any other body with the lab’s sentence', async () => {
    const unknown = await built.app.inject({ method: 'POST', url: '/api/race', payload: { preset: 'nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ error: string }>().error).toBe('preset must be one of: read-combining');
    const neither = await built.app.inject({ method: 'POST', url: '/api/race', payload: { drill: 'nope' } });
    expect(neither.statusCode).toBe(400);
    expect(neither.json<{ error: string }>().error).toMatch(/table MB/);
  });
});
