import { describe, expect, it } from 'vitest';
import type { Capabilities, TargetStatus } from '@aioscope/spec';
import {
  DEGRADED_REFRESH_MS,
  RECONNECT_BACKOFF,
  SETTINGS_REFRESH_MS,
  attemptDue,
  backoffAfterFailure,
  degradedMessage,
  initialBackoff,
  isConnectionLevelError,
  isDue,
  isPrivilegeError,
  nextStatus,
  settingsRefreshIntervalMs,
} from './monitorRules.ts';

const status = (state: TargetStatus['state'], message: string | null = null): TargetStatus => ({
  state,
  message,
  since: 1,
  lastFrameAt: null,
  skippedTicks: 0,
});

const capabilities = (overrides: Partial<Capabilities>): Capabilities => ({
  hasPgAios: true,
  canReadPgAios: true,
  statIoHasBytes: true,
  canSeeAllActivity: true,
  ...overrides,
});

describe('reconnection backoff', () => {
  it('lets the first attempt through, then doubles the wait up to the maximum', () => {
    let state = initialBackoff(RECONNECT_BACKOFF);
    expect(attemptDue(state, 0)).toBe(true);
    const waits: number[] = [];
    let now = 0;
    for (let i = 0; i < 6; i++) {
      state = backoffAfterFailure(state, now, RECONNECT_BACKOFF);
      waits.push(state.nextAttemptAt - now);
      expect(attemptDue(state, state.nextAttemptAt - 1)).toBe(false);
      now = state.nextAttemptAt;
      expect(attemptDue(state, now)).toBe(true);
    }
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe('isDue', () => {
  it('is due at the interval and after, not before; never-done is always due', () => {
    expect(isDue(1_499, 1_000, 500)).toBe(false);
    expect(isDue(1_500, 1_000, 500)).toBe(true);
    expect(isDue(0, -Infinity, 500)).toBe(true);
  });
});

describe('error classes', () => {
  it('reconnects on network errors and SQLSTATE 08/57P/53, not on a failed statement', () => {
    expect(isConnectionLevelError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionLevelError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLevelError({ code: '08006' })).toBe(true);
    expect(isConnectionLevelError({ code: '57P01' })).toBe(true);
    expect(isConnectionLevelError({ code: '53300' })).toBe(true);
    expect(isConnectionLevelError({ code: '57014' })).toBe(false); // statement_timeout: the session is fine
    expect(isConnectionLevelError({ code: '42501' })).toBe(false);
    expect(isPrivilegeError({ code: '42501' })).toBe(true);
    expect(isPrivilegeError({ code: '42P01' })).toBe(false);
  });
});

describe('nextStatus', () => {
  it('keeps connecting through failures before a first frame, reconnecting after it', () => {
    const failed = { kind: 'failed', reason: 'connection refused' } as const;
    const connecting = nextStatus(status('connecting'), failed, 10);
    expect(connecting).toMatchObject({ state: 'connecting', message: 'connection refused', since: 10 });
    const live = nextStatus(connecting, { kind: 'sampled', note: null }, 20);
    expect(live).toMatchObject({ state: 'live', message: null, since: 20 });
    expect(nextStatus(live, failed, 30)).toMatchObject({ state: 'reconnecting', since: 30 });
  });

  it('returns the same object when nothing visible changes', () => {
    const live = status('live');
    expect(nextStatus(live, { kind: 'sampled', note: null }, 99)).toBe(live);
    const noted = nextStatus(live, { kind: 'sampled', note: 'no pg_aios' }, 99);
    expect(noted).not.toBe(live);
    expect(noted.message).toBe('no pg_aios');
  });

  it('stays live when a privilege is lost, and refuses with error', () => {
    expect(nextStatus(status('live'), { kind: 'privilegeLost', reason: 'permission denied' }, 5)).toMatchObject({
      state: 'live',
      message: 'permission denied',
    });
    expect(nextStatus(status('connecting'), { kind: 'refused', reason: 'PostgreSQL 15' }, 5)).toMatchObject({
      state: 'error',
      message: 'PostgreSQL 15',
    });
  });
});

describe('settings refresh and degraded message', () => {
  it('looks again sooner while pg_aios exists but is not readable', () => {
    expect(settingsRefreshIntervalMs(null)).toBe(SETTINGS_REFRESH_MS);
    expect(settingsRefreshIntervalMs(capabilities({}))).toBe(SETTINGS_REFRESH_MS);
    expect(settingsRefreshIntervalMs(capabilities({ canReadPgAios: false }))).toBe(DEGRADED_REFRESH_MS);
    expect(settingsRefreshIntervalMs(capabilities({ hasPgAios: false, canReadPgAios: false }))).toBe(
      SETTINGS_REFRESH_MS,
    );
  });

  it('names what is missing', () => {
    expect(degradedMessage(null, capabilities({}))).toBeNull();
    expect(degradedMessage(null, capabilities({ canReadPgAios: false }))).toMatch(/GRANT pg_read_all_stats/);
    expect(degradedMessage(null, capabilities({ hasPgAios: false }))).toMatch(/no asynchronous I\/O/);
  });
});
