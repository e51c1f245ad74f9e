import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { labExperimentSchema, type LabExperiment } from '@aioscope/spec';
import { ExperimentStore } from './experimentStore.ts';

function experiment(id: string, runs = 0): LabExperiment {
  return {
    id,
    targetId: 'embedded',
    targetName: 'embedded PostgreSQL 18',
    createdAt: 1_700_000_000_000,
    finishedAt: null,
    status: 'running',
    error: null,
    cancelReason: null,
    definition: labExperimentSchema.parse({ tableMb: 64, cacheState: 'cold', variants: [{ name: 'eic=16,icl=1' }] }),
    plannedRuns: 5,
    runs: Array.from({ length: runs }, (_, i) => ({
      variant: 'eic=16,icl=1',
      round: i + 1,
      startedAt: 1_700_000_000_000 + i,
      ioMethod: 'worker',
      cacheState: 'cold' as const,
      osResidencyBefore: 0,
      executionMs: 100,
      sharedReadBlocks: 8192,
      sharedHitBlocks: 0,
      ioReadTimeMs: null,
      reads: 512,
      readBytes: 512 * 131072,
      bytesPerRead: 131072,
    })),
    summary: [],
    notes: [],
  };
}

describe('experiment store', () => {
  let dir: string;
  let reports: string[];
  let store: ExperimentStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aioscope-store-'));
    reports = [];
    store = new ExperimentStore(dir, (message) => reports.push(message));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what it saved, and leaves no temporary file', async () => {
    await store.save(experiment('aaaaaaaaaaaa', 2));
    expect(await store.load('aaaaaaaaaaaa')).toEqual(experiment('aaaaaaaaaaaa', 2));
    expect(await readdir(dir)).toEqual(['aaaaaaaaaaaa.json']);
  });

  it('keeps the newest of saves made one after another without waiting', async () => {
    await Promise.all([1, 2, 3, 4, 5].map((runs) => store.save(experiment('aaaaaaaaaaaa', runs))));
    expect((await store.load('aaaaaaaaaaaa'))?.runs).toHaveLength(5);
  });

  it('reads a file written before cancel existed (no cancelReason)', async () => {
    const old: Partial<LabExperiment> = { ...experiment('bbbbbbbbbbbb'), status: 'done' };
    delete old.cancelReason;
    await writeFile(path.join(dir, 'bbbbbbbbbbbb.json'), JSON.stringify(old));
    expect(await store.load('bbbbbbbbbbbb')).toMatchObject({ status: 'done', cancelReason: null });
  });

  it('reports corrupt and foreign files once each and skips them, never throwing', async () => {
    await store.save(experiment('aaaaaaaaaaaa'));
    await writeFile(path.join(dir, 'cccccccccccc.json'), '{"id": "cccccccccccc", "runs": [');
    await writeFile(path.join(dir, 'dddddddddddd.json'), JSON.stringify({ hello: 'world' }));
    await writeFile(path.join(dir, 'eeeeeeeeeeee.json'), JSON.stringify(experiment('aaaaaaaaaaaa')));
    await writeFile(path.join(dir, 'settings.json'), '{}');
    await writeFile(path.join(dir, 'ffffffffffff.json.123.abcd.tmp'), '{"half');
    await writeFile(path.join(dir, 'notes.txt'), 'not json');

    expect((await store.loadAll()).map((e) => e.id)).toEqual(['aaaaaaaaaaaa']);
    expect(await store.load('cccccccccccc')).toBeNull();
    expect(await store.load('dddddddddddd')).toBeNull();
    expect(await store.load('../../etc/passwd')).toBeNull();
    await store.loadAll();

    expect(reports).toHaveLength(4);
    expect(reports.join('\n')).toMatch(/cccccccccccc\.json: not valid JSON/);
    expect(reports.join('\n')).toMatch(/dddddddddddd\.json: not an aioscope experiment/);
    expect(reports.join('\n')).toMatch(/eeeeeeeeeeee\.json: holds experiment aaaaaaaaaaaa, not eeeeeeeeeeee/);
    expect(reports.join('\n')).toMatch(/settings\.json: not an experiment file/);
  });

  it('reports a skipped file again once it changes', async () => {
    const file = path.join(dir, 'cccccccccccc.json');
    await writeFile(file, '{');
    await store.loadAll();
    await writeFile(file, '{"still": "broken"}');
    await store.loadAll();
    expect(reports).toHaveLength(2);
  });

  it('reads an empty list from a folder that does not exist yet', async () => {
    expect(await new ExperimentStore(path.join(dir, 'absent')).loadAll()).toEqual([]);
  });

  it('writes through a temporary file, so a reader never sees half an experiment', async () => {
    await store.save(experiment('aaaaaaaaaaaa', 1));
    const big = experiment('aaaaaaaaaaaa', 2000);
    const saving = store.save(big);
    // Reads while the big save is in flight see the old whole file or the new whole file.
    for (let i = 0; i < 20; i++) {
      const runs = (await store.load('aaaaaaaaaaaa'))?.runs.length;
      expect([1, 2000]).toContain(runs);
    }
    await saving;
    expect(JSON.parse(await readFile(path.join(dir, 'aaaaaaaaaaaa.json'), 'utf8')).runs).toHaveLength(2000);
    expect(reports).toEqual([]);
  });
});
