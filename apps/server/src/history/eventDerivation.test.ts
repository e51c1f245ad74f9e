import { describe, expect, it } from 'vitest';
import type { Capabilities, HistoryEvent, ServerInfo, TargetStatus } from '@aioscope/spec';
import { buildPayloads, recordedServers } from '@aioscope/core/testing';
import { INITIAL_WATCHED_STATE, auditChanges, observe } from './eventDerivation.ts';
import type { Observation, WatchedState } from './eventDerivation.ts';

const servers = Object.fromEntries(recordedServers().map((server) => [server.name, buildPayloads(server).summary]));

function summaryOf(name: string): { server: ServerInfo; capabilities: Capabilities } {
  const summary = servers[name];
  if (summary?.server === undefined || summary.server === null || summary.capabilities === null)
    throw new Error(`no recorded server ${name}`);
  return { server: summary.server, capabilities: summary.capabilities };
}

function run(observations: Observation[], state: WatchedState = INITIAL_WATCHED_STATE): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  for (const observation of observations) {
    const derived = observe(state, observation);
    state = derived.state;
    events.push(...derived.events);
  }
  return events;
}

const status = (state: TargetStatus['state'], since: number, message: string | null = null): Observation => ({
  kind: 'status',
  status: { state, since, message, lastFrameAt: null, skippedTicks: 0 },
});

describe('events derived from statuses', () => {
  it('reports a connection, its loss with the reason, and the reconnection', () => {
    const events = run([
      status('connecting', 1),
      status('live', 2),
      status('reconnecting', 3, 'terminating connection due to administrator command'),
      status('error', 4, 'connection refused'),
      status('live', 5),
    ]);
    expect(events).toEqual([
      { t: 2, kind: 'connected', message: 'connected' },
      { t: 3, kind: 'disconnected', message: 'disconnected: terminating connection due to administrator command' },
      { t: 5, kind: 'connected', message: 'connected' },
    ]);
  });

  it('does not call a failed first connection a disconnection', () => {
    expect(run([status('connecting', 1), status('error', 2, 'connection refused')])).toEqual([]);
  });
});

describe('events derived from server info (recorded servers)', () => {
  const embedded = summaryOf('pg18.4-embedded-worker');
  const uring = summaryOf('pg18.6-io_uring');
  const noGrants = summaryOf('pg18.6-io_uring-no-grants');
  const info = (s: typeof embedded, at: number): Observation => ({ kind: 'serverInfo', ...s, at });

  it('says nothing on the first reading or an unchanged one', () => {
    expect(run([info(uring, 1), info(uring, 2)])).toEqual([]);
  });

  it('sees a restart on the same version by the postmaster start time', () => {
    const started = (at: number | null): typeof uring => ({ ...uring, server: { ...uring.server, startedAt: at } });
    const events = run([info(started(1_000), 1), info(started(1_000), 2), info(started(90_000), 3)]);
    expect(events).toEqual([
      {
        t: 3,
        kind: 'serverRestarted',
        message: `server restarted at ${new Date(90_000).toISOString()} (pg_postmaster_start_time)`,
      },
    ]);
    // Not read (an older recording): no restart is claimed.
    expect(run([info(started(null), 1), info(started(90_000), 2)])).toEqual([]);
  });

  it('reports a new version as a restart and each changed setting in one line', () => {
    const events = run([info(embedded, 1), info(uring, 2)]);
    expect(events.map((event) => event.kind)).toEqual(['serverRestarted', 'settingsChanged']);
    expect(events[0]?.message).toBe('server restarted: 18.4 → 18.6');
    expect(events[1]?.message).toMatch(/io_method worker → io_uring/);
  });

  it('reports privileges lost and regained', () => {
    const events = run([info(uring, 1), info(noGrants, 2), info(uring, 3)]);
    // The recorded role without grants can read neither pg_aios nor other sessions' waits.
    expect(events.map((event) => [event.t, event.kind])).toEqual([
      [2, 'privilegeLost'],
      [2, 'privilegeLost'],
      [3, 'privilegeRegained'],
      [3, 'privilegeRegained'],
    ]);
    expect(events[0]?.message).toBe('can no longer read pg_aios (reads in flight)');
  });
});

describe('events derived from pg_stat_io deltas', () => {
  it('reports a reset at the delta time and nothing for an ordinary delta', () => {
    const [recorded] = recordedServers();
    const ordinary = recorded === undefined ? undefined : buildPayloads(recorded).ioDeltas[0];
    if (ordinary === undefined) throw new Error('no recorded pg_stat_io delta');
    const events = run([
      { kind: 'ioDelta', delta: ordinary },
      { kind: 'ioDelta', delta: { ...ordinary, t: 42, reset: true } },
    ]);
    expect(events).toEqual([{ t: 42, kind: 'statsReset', message: 'pg_stat_io counters were reset' }]);
  });
});

describe('audit changes (recorded audits)', () => {
  const audits = recordedServers().map((server) => buildPayloads(server).audit.findings);
  const findings = audits.find((list) => list.some((finding) => finding.level === 'pass') && list.length > 2);
  if (findings === undefined) throw new Error('no recorded audit with passing findings');
  const [first, second] = findings.filter((finding) => finding.level === 'pass');
  if (first === undefined || second === undefined) throw new Error('the recorded audit has fewer than two passes');

  it('says nothing for the same audit, or a new value at the same level', () => {
    expect(auditChanges(findings, findings)).toEqual([]);
    const revalued = findings.map((finding) => (finding === first ? { ...finding, value: 'another' } : finding));
    expect(auditChanges(findings, revalued)).toEqual([]);
  });

  it('names each finding whose level changed, appeared or went, in one stable order', () => {
    const after = [
      ...findings
        .filter((finding) => finding !== second)
        .map((f) => (f === first ? { ...f, level: 'warn' as const } : f)),
      { ...first, rule: 'a_new_rule', title: 'a new rule', level: 'info' as const },
    ];
    const changes = auditChanges(findings, after);
    expect(changes).toHaveLength(3);
    expect(changes).toEqual(
      expect.arrayContaining([
        `${first.title} pass → warn`,
        `${second.title} pass → (not checked)`,
        'a new rule (not checked) → info',
      ]),
    );
    expect(auditChanges(findings, [...after].reverse())).toEqual(changes);
  });

  it('tells findings of one rule apart by their title (one per tablespace)', () => {
    const one = { ...first, rule: 'tablespace_io_concurrency_override', title: 'fast_ssd' };
    const other = { ...one, title: 'slow_disk' };
    expect(auditChanges([one, other], [one, { ...other, level: 'warn' as const }])).toEqual(['slow_disk pass → warn']);
  });
});
