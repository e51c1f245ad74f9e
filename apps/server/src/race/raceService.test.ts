import { describe, expect, it } from 'vitest';
import { READ_COMBINING_RACE, RACE_MAX_KEPT, labExperimentSchema, type LabExperiment } from '@aioscope/spec';
import type { LabService, StartResult } from '../lab/labService.ts';
import { RaceService } from './raceService.ts';

function experiment(id: string): LabExperiment {
  return {
    id,
    targetId: 'embedded',
    targetName: 'embedded PostgreSQL 18',
    createdAt: 1_700_000_000_000,
    finishedAt: 1_700_000_001_000,
    status: 'done',
    error: null,
    cancelReason: null,
    definition: labExperimentSchema.parse(READ_COMBINING_RACE),
    plannedRuns: 6,
    runs: [],
    summary: [],
    notes: [],
  };
}

/**
 * The lab as the race service uses it: start hands out ids and keeps the experiment, get reads it
 * back. The lab's own rules (policy, one at a time) are tested with the lab; here only what the
 * race service remembers of each race is.
 */
function fakeLab(): LabService {
  const kept = new Map<string, LabExperiment>();
  const lab = {
    target: { clientConfig: {} },
    start(): StartResult {
      const id = `race${String(kept.size).padStart(8, '0')}`;
      kept.set(id, experiment(id));
      return { ok: true, id };
    },
    get: (id: string) => Promise.resolve(kept.get(id) ?? null),
  };
  return lab as unknown as LabService;
}

describe('race service', () => {
  it('says a forgotten race expired, one never raced has no captures, and an unknown id is no race', async () => {
    const races = new RaceService(fakeLab());
    const ids: string[] = [];
    for (let i = 0; i <= RACE_MAX_KEPT; i++) {
      const started = races.start({ preset: 'read-combining' });
      if (!started.ok) throw new Error(started.error);
      ids.push(started.id);
    }
    const [oldest, ...newer] = ids;
    if (oldest === undefined) throw new Error('no race started');
    expect((await races.get(oldest))?.captures).toBe('expired');
    for (const id of newer) expect((await races.get(id))?.captures).toBe('kept');
    expect(await races.get('zzzzzzzzzzzz')).toBeNull();
  });

  it('names the presets when a body asks for one it does not know, and starts nothing', () => {
    const races = new RaceService(fakeLab());
    for (const preset of ['nope', 123, null])
      expect(races.start({ preset })).toEqual({
        ok: false,
        status: 400,
        error: 'preset must be one of: read-combining',
      });
    expect(races.start({ preset: 'read-combining' }).ok).toBe(true);
  });
});
