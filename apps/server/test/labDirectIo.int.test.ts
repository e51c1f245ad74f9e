import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_IO_NOTE } from '@aioscope/core';
import type { LabExperiment, LabExperimentInput } from '@aioscope/spec';
import { LabService } from '../src/lab/labService.ts';
import type { EmbeddedPostgresServer } from '../src/postgres/embeddedPostgres.ts';
import type { TargetDefinition } from '../src/targets/target.ts';
import { connect, embeddedTarget, startTestPostgres, TEST_DATA_ROOT } from './support/testPostgres.ts';

const RESULTS = path.join(TEST_DATA_ROOT, 'lab-direct-io-results');

describe('scan lab with direct I/O on a real embedded PostgreSQL 18', () => {
  let server: EmbeddedPostgresServer;
  let target: TargetDefinition;

  beforeAll(async () => {
    await rm(RESULTS, { recursive: true, force: true });
    server = await startTestPostgres('lab-direct-io');
    target = embeddedTarget(server);
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** A lab per experiment: each has its own start rate limit. */
  async function runToEnd(input: LabExperimentInput): Promise<LabExperiment> {
    const lab = new LabService({ target, embedded: server, resultsDir: RESULTS, allowExternal: false });
    const started = lab.start(input);
    if (!started.ok) throw new Error(started.error);
    await lab.settled();
    const experiment = await lab.get(started.id);
    if (experiment === null) throw new Error('experiment not saved');
    return experiment;
  }

  /** The server's own word, on a fresh connection (the lab's restarts end older ones). */
  async function showDirectIo(): Promise<string | undefined> {
    const client = await connect(server);
    try {
      return (await client.query<{ debug_io_direct: string }>('SHOW debug_io_direct')).rows[0]?.debug_io_direct;
    } finally {
      await client.end();
    }
  }

  const coldScan = (directIo: boolean, rounds: number): LabExperimentInput => ({
    tableMb: 64,
    cacheState: 'cold',
    rounds,
    directIo,
    variants: [{ name: 'icl=16', session: { io_combine_limit: 16 } }],
  });

  it('runs with debug_io_direct = data, records it with the experiment, and takes it away afterwards', async () => {
    expect(await showDirectIo()).toBe('');
    const experiment = await runToEnd(coldScan(true, 1));
    expect(experiment.status, experiment.error ?? '').toBe('done');
    expect(experiment.definition.directIo).toBe(true);
    expect(experiment.notes).toContain(DIRECT_IO_NOTE);
    expect(experiment.runs).toHaveLength(1);
    expect(experiment.runs[0]?.ioDirect).toBe('data');
    expect(experiment.runs[0]?.sharedReadBlocks).toBeGreaterThan(0);
    expect(await showDirectIo()).toBe('');
    expect(server.currentSettings.debug_io_direct ?? '').toBe('');
  });

  it('runs without it when not asked, and reports the cold scan times of both on this machine', async () => {
    const buffered = await runToEnd(coldScan(false, 3));
    const direct = await runToEnd(coldScan(true, 3));
    expect(buffered.status, buffered.error ?? '').toBe('done');
    expect(direct.status, direct.error ?? '').toBe('done');
    expect(buffered.runs.map((run) => run.ioDirect)).toEqual(['', '', '']);
    expect(direct.runs.map((run) => run.ioDirect)).toEqual(['data', 'data', 'data']);
    expect(buffered.notes).not.toContain(DIRECT_IO_NOTE);
    console.log(
      `lab direct I/O: cold 64 MB scan, icl=16, median ${buffered.summary[0]?.medianMs.toFixed(1)} ms buffered ` +
        `vs ${direct.summary[0]?.medianMs.toFixed(1)} ms direct; ` +
        `runs buffered ${buffered.runs.map((run) => run.executionMs.toFixed(0)).join('/')} ms, ` +
        `direct ${direct.runs.map((run) => run.executionMs.toFixed(0)).join('/')} ms`,
    );
    expect(await showDirectIo()).toBe('');
  });
});
