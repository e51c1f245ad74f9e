import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  apiErrorSchema,
  auditReportSchema,
  frameEventSchema,
  ioDeltaEventSchema,
  joinTargetReplySchema,
  liveFrameSchema,
  liveSnapshotSchema,
  processDetailSchema,
  processesEventSchema,
  serverToClientSchemas,
  statusEventSchema,
  targetListSchema,
  targetSummarySchema,
  type ServerToClientEvent,
  type ServerToClientEvents,
} from '@aioscope/spec';
import { buildPayloads, overTheWire, recordedServers, type RecordedPayloads } from './recordedPayloads.ts';

const servers = recordedServers().map((server) => ({ server, payloads: buildPayloads(server) }));

function payloadsOf(name: string): RecordedPayloads {
  const found = servers.find((entry) => entry.server.name === name);
  if (found === undefined) throw new Error(`no recording named ${name}`);
  return found.payloads;
}

/**
 * Parses what the wire carries and expects it back unchanged: nothing dropped, nothing invented.
 * Both of zod's paths: compiled (node) and interpreted (the browser, whose CSP forbids eval).
 */
function expectRoundTrip(schema: z.ZodType, value: unknown): void {
  const wire = overTheWire(value);
  for (const jitless of [false, true]) {
    const parsed = schema.safeParse(wire, { jitless });
    expect(parsed.error?.issues).toBeUndefined();
    expect(parsed.data).toStrictEqual(wire);
  }
}

/** The path and code of the first issue, or null when the payload parses. */
function firstIssue(schema: z.ZodType, value: unknown): { path: PropertyKey[]; code: string } | null {
  const parsed = schema.safeParse(value);
  const issue = parsed.error?.issues[0];
  return issue === undefined ? null : { path: issue.path, code: issue.code };
}

describe('the recordings cover what the schemas must accept', () => {
  it('has reads in flight, the scan map, io workers, no-pg_aios frames, deltas and an unsupported server', () => {
    const frames = servers.flatMap((entry) => entry.payloads.frames);
    expect(frames.some((frame) => (frame.inflight?.total.count ?? 0) > 0)).toBe(true);
    expect(frames.some((frame) => Object.keys(frame.newReads?.blocksHistogram ?? {}).length > 0)).toBe(true);
    expect(frames.some((frame) => Object.keys(frame.byProcess).length > 0)).toBe(true);
    expect(frames.some((frame) => (frame.scans ?? []).some((scan) => scan.relation.name === null))).toBe(true);
    expect(frames.some((frame) => (frame.scans ?? []).some((scan) => scan.progress !== null))).toBe(true);
    expect(frames.some((frame) => frame.scans === undefined)).toBe(true);
    expect(frames.some((frame) => frame.inflight === null && frame.newReads === null)).toBe(true);
    expect(frames.some((frame) => frame.ioWorkers.some((worker) => worker.busy))).toBe(true);
    expect(frames.some((frame) => frame.ioWorkers.some((worker) => !('waitEvent' in worker)))).toBe(true);
    expect(servers.some((entry) => entry.payloads.ioDeltas.some((delta) => delta.reset))).toBe(true);
    expect(servers.some((entry) => entry.payloads.ioDeltas.some((delta) => delta.bytesPerRead !== null))).toBe(true);
    expect(payloadsOf('pg15.18').summary.server).toBeNull();
    expect(payloadsOf('pg15.18').status.state).toBe('error');
    const embeddedLists = payloadsOf('pg18.4-embedded-worker').processLists;
    expect(embeddedLists.some((list) => list.processes.some((process) => process.database !== null))).toBe(true);
  });
});

describe.each(servers.map((entry) => [entry.server.name, entry.payloads] as const))(
  'payloads built from the %s recording',
  (_name, payloads) => {
    it('every frame event parses unchanged', () => {
      expect(payloads.frames.length).toBeGreaterThan(0);
      for (const frame of payloads.frames) expectRoundTrip(frameEventSchema, { targetId: 'recorded', frame });
    });

    it('the snapshot parses unchanged', () => {
      expectRoundTrip(liveSnapshotSchema, payloads.snapshot);
    });

    it('every processes event parses unchanged', () => {
      for (const list of payloads.processLists)
        expectRoundTrip(processesEventSchema, { targetId: 'recorded', ...list });
    });

    it('io deltas and the status event parse unchanged', () => {
      for (const delta of payloads.ioDeltas) expectRoundTrip(ioDeltaEventSchema, { targetId: 'recorded', delta });
      expectRoundTrip(statusEventSchema, { targetId: 'recorded', status: payloads.status });
    });

    it('the REST responses parse unchanged', () => {
      expectRoundTrip(targetListSchema, [payloads.summary]);
      expectRoundTrip(targetSummarySchema, payloads.summary);
      expectRoundTrip(auditReportSchema, payloads.audit);
      for (const detail of payloads.processDetails) expectRoundTrip(processDetailSchema, detail);
    });
  },
);

describe('broken payloads are rejected where they break', () => {
  const { frames, snapshot, summary, processDetails } = payloadsOf('pg18.6-io_uring');
  const busy = frames.find((frame) => (frame.inflight?.total.count ?? 0) > 0 && frame.scans !== undefined);
  if (busy === undefined) throw new Error('the io_uring recording has no frame with reads in flight and a scan map');
  const pid = Object.keys(busy.byProcess)[0] ?? '';
  const REMOVE = Symbol('remove');
  /** The busy frame's event as the wire carries it, with the value at `path` (under frame) replaced or removed. */
  const brokenFrame = (path: PropertyKey[], value: unknown): unknown => {
    const event = overTheWire({ targetId: 'recorded', frame: busy });
    let node = (event as { frame: unknown }).frame as Record<PropertyKey, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<PropertyKey, unknown>;
    const last = path[path.length - 1] ?? '';
    if (value === REMOVE) Reflect.deleteProperty(node, last);
    else node[last] = value;
    return event;
  };

  it.each([
    ['a missing server time', ['t'], REMOVE, ['frame', 't'], 'invalid_type'],
    [
      'a count sent as text',
      ['inflight', 'total', 'count'],
      '3',
      ['frame', 'inflight', 'total', 'count'],
      'invalid_type',
    ],
    [
      'an AIO state pg_aios does not have',
      ['inflight', 'byState', 'LOST'],
      { count: 1, bytes: 1 },
      ['frame', 'inflight', 'byState'],
      'unrecognized_keys',
    ],
    ['a pid that is not a number', ['byProcess', 'abc'], [1, 8192], ['frame', 'byProcess', 'abc'], 'invalid_key'],
    ['a per-process pair missing its bytes', ['byProcess', pid], [1], ['frame', 'byProcess', pid], 'too_small'],
    [
      'a wait count sent as null',
      ['waits', 'client backend:AioIoUringExecution'],
      null,
      ['frame', 'waits', 'client backend:AioIoUringExecution'],
      'invalid_type',
    ],
    [
      'a scan without its relation name',
      ['scans', 0, 'relation', 'name'],
      REMOVE,
      ['frame', 'scans', 0, 'relation', 'name'],
      'invalid_type',
    ],
    [
      'a histogram that is a list',
      ['newReads', 'blocksHistogram'],
      [0, 3],
      ['frame', 'newReads', 'blocksHistogram'],
      'invalid_type',
    ],
    ['a NaN that JSON turned into null', ['sampleMs'], null, ['frame', 'sampleMs'], 'invalid_type'],
    [
      'an io worker whose busy flag is text',
      ['ioWorkers'],
      [
        { pid: 1, busy: false },
        { pid: 2, busy: 'yes' },
      ],
      ['frame', 'ioWorkers', 1, 'busy'],
      'invalid_type',
    ],
  ] as const)('a frame with %s', (_what, path, value, issuePath, code) => {
    expect(firstIssue(frameEventSchema, brokenFrame([...path], value))).toEqual({ path: issuePath, code });
  });

  it('one bad frame of a snapshot, with its index', () => {
    const wire = overTheWire(snapshot) as { frames: Record<string, unknown>[] };
    const third = wire.frames[2];
    if (third === undefined) throw new Error('snapshot too short');
    third.ioWorkers = null;
    expect(firstIssue(liveSnapshotSchema, wire)).toEqual({ path: ['frames', 2, 'ioWorkers'], code: 'invalid_type' });
  });

  it('a connection state the server does not have', () => {
    const event = { targetId: 'recorded', status: { ...snapshot.status, state: 'sleeping' } };
    expect(firstIssue(statusEventSchema, event)).toEqual({ path: ['status', 'state'], code: 'invalid_value' });
  });

  it('a target of an unknown kind, and a list that is not a list', () => {
    expect(firstIssue(targetListSchema, [summary, { ...summary, kind: 'cloud' }])).toEqual({
      path: [1, 'kind'],
      code: 'invalid_value',
    });
    expect(firstIssue(targetListSchema, { targets: [summary] })).toEqual({ path: [], code: 'invalid_type' });
  });

  it('a process detail with backend rows in the wrong shape', () => {
    const detail = processDetails.find((candidate) => candidate.backendIo !== null);
    const broken = { ...detail, backendIo: [{ object: 'relation', context: 'normal', reads: '1' }] };
    expect(firstIssue(processDetailSchema, broken)).toEqual({ path: ['backendIo', 0, 'reads'], code: 'invalid_type' });
  });

  it('a processes event with a limit that is not a number', () => {
    const event = overTheWire({ targetId: 'recorded', t: 1, processes: snapshot.processes }) as {
      processes: { limit: { value: unknown } }[];
    };
    const first = event.processes[0];
    if (first === undefined) throw new Error('no processes recorded');
    first.limit.value = '16';
    expect(firstIssue(processesEventSchema, event)).toEqual({
      path: ['processes', 0, 'limit', 'value'],
      code: 'invalid_type',
    });
  });

  it('an audit finding of an unknown level, an error body without its message, a refusal without its reason', () => {
    const audit = payloadsOf('pg18.6-io_uring').audit;
    const finding = audit.findings[0];
    expect(firstIssue(auditReportSchema, { ...audit, findings: [{ ...finding, level: 'fatal' }] })).toEqual({
      path: ['findings', 0, 'level'],
      code: 'invalid_value',
    });
    expect(firstIssue(apiErrorSchema, { message: 'boom' })).toEqual({ path: ['error'], code: 'invalid_type' });
    expect(firstIssue(joinTargetReplySchema, { ok: false })).toEqual({ path: ['error'], code: 'invalid_type' });
  });

  it('accepts the error body and both join replies the server sends', () => {
    expect(apiErrorSchema.parse({ error: 'unknown target "x"' })).toEqual({ error: 'unknown target "x"' });
    expect(joinTargetReplySchema.parse({ ok: true })).toEqual({ ok: true });
    expect(joinTargetReplySchema.parse({ ok: true, replica: 'b', owner: 'a' })).toEqual({
      ok: true,
      replica: 'b',
      owner: 'a',
    });
    expect(joinTargetReplySchema.safeParse({ ok: true, owner: 'Not A Name' }).success).toBe(false);
    expect(joinTargetReplySchema.parse({ ok: false, error: 'at most 5 joins per 10 s' }).ok).toBe(false);
  });

  it('a frame schema accepts a frame without the scan map but not one with an empty body', () => {
    const withoutScans = { ...busy };
    delete withoutScans.scans;
    expect(liveFrameSchema.safeParse(overTheWire(withoutScans)).success).toBe(true);
    expect(liveFrameSchema.safeParse({}).success).toBe(false);
  });
});

describe('every server→client event has a schema', () => {
  // Compile time: the map is typed over ServerToClientEvents, and this line fails `npm run
  // typecheck` if the two key sets ever differ (an event added to one and not the other).
  expectTypeOf<keyof typeof serverToClientSchemas>().toEqualTypeOf<keyof ServerToClientEvents>();

  /** One recorded payload per event; typed so that a new event needs a payload here too. */
  const { frames, ioDeltas, status, processLists, snapshot } = payloadsOf('pg19beta3-worker');
  const samples: { [E in ServerToClientEvent]: unknown } = {
    processes: { targetId: 'recorded', ...processLists[processLists.length - 1] },
    snapshot,
    frame: { targetId: 'recorded', frame: frames[frames.length - 1] },
    ioDelta: { targetId: 'recorded', delta: ioDeltas[0] },
    status: { targetId: 'recorded', status },
    owner: { targetId: 'recorded', owner: 'replica-b' },
  };

  it('has exactly one schema per event, at run time too', () => {
    expect(Object.keys(serverToClientSchemas).sort()).toEqual(Object.keys(samples).sort());
  });

  it.each(Object.keys(samples) as ServerToClientEvent[])(
    '%s: a recorded payload parses, an empty one does not',
    (event) => {
      const schema = serverToClientSchemas[event];
      expect(schema.safeParse(overTheWire(samples[event])).error?.issues).toBeUndefined();
      expect(schema.safeParse({ targetId: 'recorded' }).success).toBe(false);
    },
  );
});
