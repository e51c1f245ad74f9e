import { describe, expect, it } from 'vitest';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import {
  headerSettings,
  inflightStateSeries,
  ioMethodOfTarget,
  showsWorkerFigures,
  waitEventsCaption,
} from './ioMethodView.ts';

const payloadsOf = (name: string): ReturnType<typeof buildPayloads> => {
  const server = recordedServers().find((candidate) => candidate.name === name);
  if (server === undefined) throw new Error(`no recording ${name}`);
  return buildPayloads(server);
};
// PostgreSQL 18.6 with io_method = io_uring during a cold parallel scan, and an io worker server.
const ioUring = payloadsOf('pg18.6-io_uring');
const worker = payloadsOf('pg18.4-embedded-worker');
const HEADER = ['io_method', 'io_workers', 'io_max_workers', 'effective_io_concurrency', 'io_combine_limit'];

describe('what the panels say under io_uring (recorded server)', () => {
  const method = ioMethodOfTarget(ioUring.summary);

  it('reads the recorded target as io_uring', () => {
    expect(method).toBe('io_uring');
  });

  it('names the state the recorded reads were in "in the kernel", and it is the state they were in', () => {
    const [submitted] = inflightStateSeries(method);
    expect(submitted?.label).toMatch(/in the kernel/);
    expect(submitted?.label).not.toMatch(/worker/);
    const inState = ioUring.frames.reduce(
      (sum, frame) =>
        sum + (submitted?.states ?? []).reduce((n, state) => n + (frame.inflight?.byState[state]?.count ?? 0), 0),
      0,
    );
    expect(inState).toBeGreaterThan(0);
  });

  it('shows no worker figure: the frames carry no backlog and the method has no io workers', () => {
    expect(showsWorkerFigures(method)).toBe(false);
    expect(ioUring.frames.every((frame) => frame.inflight === null || frame.inflight.workerBacklog === null)).toBe(
      true,
    );
    expect(showsWorkerFigures(ioMethodOfTarget(worker.summary))).toBe(true);
  });

  it('drops io_workers from the header, which the recorded server reports but does not use', () => {
    const settings = ioUring.summary.server?.settings ?? [];
    expect(settings.some((setting) => setting.name === 'io_workers')).toBe(true);
    const shown = headerSettings(settings, HEADER, method).map((setting) => setting.name);
    expect(shown).not.toContain('io_workers');
    expect(shown).toEqual(expect.arrayContaining(['io_method', 'io_combine_limit']));
    const onWorker = headerSettings(worker.summary.server?.settings ?? [], HEADER, ioMethodOfTarget(worker.summary));
    expect(onWorker.map((setting) => setting.name)).toContain('io_workers');
  });

  it('captions the wait events the recorded backends were in, and not the io workers’ ones', () => {
    const caption = waitEventsCaption(method);
    const seen = new Set(ioUring.frames.flatMap((frame) => Object.keys(frame.waits).map((key) => key.split(':')[1])));
    expect(seen.size).toBeGreaterThan(0);
    for (const event of seen) expect(caption).toContain(event);
    expect(caption).toContain('io_uring');
    expect(caption).not.toMatch(/IoWorkerMain|AioWorkerSubmissionQueue/);
  });
});
