import { describe, expect, it } from 'vitest';
import type { Capabilities, TargetStatus } from '@aioscope/spec';
import { fleetAttention, readsNotCombining, STALE_AFTER_MS, type AttentionInput } from './fleetAttention.ts';
import type { WorkerVerdict } from './saturation.ts';
import { parseCapabilities, type ServerInfoQueryRow } from './settings.ts';
import { loadFixture } from './testFixtures.ts';

/** What SERVER_INFO_SQL returned for a role with grants (pg_monitor) and for one without, on 18.6. */
const capabilitiesOf = (file: string): Capabilities => {
  const recorded = loadFixture<{ serverInfo: ServerInfoQueryRow[] }>(`servers/${file}`);
  return parseCapabilities(recorded.serverInfo[0] as ServerInfoQueryRow);
};
const granted = capabilitiesOf('pg18.6-io_uring.json');
const noGrants = capabilitiesOf('pg18.6-io_uring-no-grants.json');

const NOW = 1_000_000;
const live: TargetStatus = { state: 'live', message: null, since: NOW - 60_000, lastFrameAt: NOW, skippedTicks: 0 };
const keepingUp: WorkerVerdict = { level: 'keeping up', summary: 'keeping up', evidence: [] };
const saturated: WorkerVerdict = {
  level: 'saturated',
  summary: 'saturated: reads queue behind busy workers',
  evidence: ['3 io workers busy in 95 % of samples (last 10 s)'],
};
const quiet = { reads: 0, bytes: 0, seconds: 60 };

function input(overrides: Partial<AttentionInput> = {}): AttentionInput {
  return {
    status: live,
    capabilities: granted,
    now: NOW,
    lastFrameReceivedAt: NOW - 50,
    workers: keepingUp,
    bulkReads: quiet,
    ioCombineLimitBytes: 131_072,
    auditWarnings: 0,
    ...overrides,
  };
}

const kinds = (i: AttentionInput): string[] => fleetAttention(i).reasons.map((r) => r.kind);

describe('fleet attention', () => {
  it('has nothing to say about a healthy live server', () => {
    expect(fleetAttention(input())).toEqual({ score: 0, reasons: [] });
    // No audit yet is not a failed audit.
    expect(fleetAttention(input({ auditWarnings: null })).score).toBe(0);
  });

  it('names each reason with its figure', () => {
    const result = fleetAttention(input({ workers: saturated, auditWarnings: 2 }));
    expect(result.reasons).toEqual([
      {
        kind: 'workersSaturated',
        message: 'saturated: reads queue behind busy workers (3 io workers busy in 95 % of samples (last 10 s))',
      },
      { kind: 'auditFailed', message: '2 settings audit rules warn' },
    ]);
  });

  it('ranks a refused server above a live one with every lesser reason', () => {
    const refused = fleetAttention(
      input({ status: { ...live, state: 'error', message: 'PostgreSQL 15 is not supported' } }),
    );
    const everythingElse = fleetAttention(
      input({
        lastFrameReceivedAt: NOW - STALE_AFTER_MS - 1,
        workers: saturated,
        bulkReads: { reads: 6_000, bytes: 6_000 * 8192, seconds: 60 },
        auditWarnings: 3,
      }),
    );
    expect(refused.reasons).toEqual([{ kind: 'refused', message: 'PostgreSQL 15 is not supported' }]);
    expect(everythingElse.reasons.map((r) => r.kind)).toEqual([
      'stale',
      'workersSaturated',
      'readsNotCombining',
      'auditFailed',
    ]);
    expect(refused.score).toBeGreaterThan(everythingElse.score);
  });

  it('calls a live server stale after 5 s without a frame, on aioscope clock', () => {
    expect(kinds(input({ lastFrameReceivedAt: NOW - STALE_AFTER_MS }))).toEqual([]);
    expect(kinds(input({ lastFrameReceivedAt: NOW - STALE_AFTER_MS - 1 }))).toEqual(['stale']);
  });

  it('treats reconnecting, and connecting for too long, as disconnected', () => {
    const reconnecting: TargetStatus = { ...live, state: 'reconnecting', message: 'ECONNREFUSED', since: NOW - 3_000 };
    expect(fleetAttention(input({ status: reconnecting })).reasons).toEqual([
      { kind: 'disconnected', message: 'reconnecting for 3 s: ECONNREFUSED' },
    ]);
    // A target that just started is not yet a problem.
    expect(kinds(input({ status: { ...live, state: 'connecting', since: NOW - 1_000 } }))).toEqual([]);
    expect(kinds(input({ status: { ...live, state: 'connecting', since: NOW - 6_000 } }))).toEqual(['disconnected']);
  });
});

describe('a role without grants', () => {
  it('needs attention, with the GRANT that fixes it, above a healthy server and below a stale one', () => {
    const blind = fleetAttention(input({ capabilities: noGrants }));
    expect(blind.reasons).toEqual([
      {
        kind: 'missingPrivileges',
        message:
          "the role cannot read pg_aios or other sessions' wait events: GRANT pg_read_all_stats (or pg_monitor) to it",
      },
    ]);
    expect(blind.score).toBeGreaterThan(fleetAttention(input()).score);
    const stale = fleetAttention(input({ lastFrameReceivedAt: NOW - STALE_AFTER_MS - 1 }));
    expect(stale.score).toBeGreaterThan(blind.score);
  });

  it('says nothing before the privileges are read, or on a server without pg_aios', () => {
    expect(kinds(input({ capabilities: null }))).toEqual([]);
    const pg16 = { hasPgAios: false, canReadPgAios: false, statIoHasBytes: false, canSeeAllActivity: true };
    expect(kinds(input({ capabilities: pg16 }))).toEqual([]);
  });
});

describe('reads not combining (the AioscopeReadsNotCombined rule)', () => {
  it('flags busy bulk reads well under io_combine_limit', () => {
    expect(readsNotCombining({ reads: 6_000, bytes: 6_000 * 16_384, seconds: 60 }, 131_072)).toBe(
      'sequential scans read 16 kB per read, io_combine_limit is 128 kB (pg_stat_io bulkread, last 60 s)',
    );
  });

  it('leaves combined reads, few reads and an unknown limit alone', () => {
    expect(readsNotCombining({ reads: 6_000, bytes: 6_000 * 65_536, seconds: 60 }, 131_072)).toBeNull();
    expect(readsNotCombining({ reads: 500, bytes: 500 * 8192, seconds: 60 }, 131_072)).toBeNull();
    expect(readsNotCombining({ reads: 6_000, bytes: 6_000 * 8192, seconds: 60 }, null)).toBeNull();
  });
});
