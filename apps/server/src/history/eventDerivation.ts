import type { AuditFinding, Capabilities, HistoryEvent, IoStatDelta, ServerInfo, TargetStatus } from '@aioscope/spec';

/**
 * The events a recorder derives from what a monitor tells it: a pure fold over statuses, server
 * info and pg_stat_io deltas, so the rules are tested on recorded payloads without a server.
 */

export interface WatchedState {
  /** Whether the last status was live; null before the first status. */
  live: boolean | null;
  server: ServerInfo | null;
  capabilities: Capabilities | null;
}

export type Observation =
  | { kind: 'status'; status: TargetStatus }
  | { kind: 'serverInfo'; server: ServerInfo; capabilities: Capabilities; at: number }
  | { kind: 'ioDelta'; delta: IoStatDelta };

export const INITIAL_WATCHED_STATE: WatchedState = { live: null, server: null, capabilities: null };

export interface Derived {
  state: WatchedState;
  events: HistoryEvent[];
}

export function observe(state: WatchedState, observation: Observation): Derived {
  switch (observation.kind) {
    case 'status':
      return fromStatus(state, observation.status);
    case 'serverInfo':
      return fromServerInfo(state, observation.server, observation.capabilities, observation.at);
    case 'ioDelta':
      return {
        state,
        events: observation.delta.reset
          ? [{ t: observation.delta.t, kind: 'statsReset', message: 'pg_stat_io counters were reset' }]
          : [],
      };
  }
}

function fromStatus(state: WatchedState, status: TargetStatus): Derived {
  const live = status.state === 'live';
  const events: HistoryEvent[] = [];
  if (live && state.live !== true) events.push({ t: status.since, kind: 'connected', message: 'connected' });
  // 'connecting' → 'error' at start-up was never a connection: only a live one can be lost.
  if (!live && state.live === true) {
    const why = status.message === null ? status.state : status.message;
    events.push({ t: status.since, kind: 'disconnected', message: `disconnected: ${why}` });
  }
  return { state: { ...state, live: status.state === 'connecting' ? state.live : live }, events };
}

/** Privileges whose loss blanks part of the dashboard, with what the user loses. */
const PRIVILEGES: readonly { key: keyof Capabilities; what: string }[] = [
  { key: 'canReadPgAios', what: 'pg_aios (reads in flight)' },
  { key: 'canSeeAllActivity', what: "other sessions' wait events" },
];

function fromServerInfo(state: WatchedState, server: ServerInfo, capabilities: Capabilities, at: number): Derived {
  const events: HistoryEvent[] = [];
  const before = state.server;
  if (before !== null && before.version !== server.version) {
    events.push({ t: at, kind: 'serverRestarted', message: `server restarted: ${before.version} → ${server.version}` });
  } else if (
    before !== null &&
    before.startedAt !== null &&
    server.startedAt !== null &&
    before.startedAt !== server.startedAt
  ) {
    // Same version, new postmaster start time: a plain restart (or a crash and recovery).
    events.push({
      t: at,
      kind: 'serverRestarted',
      message: `server restarted at ${new Date(server.startedAt).toISOString()} (pg_postmaster_start_time)`,
    });
  }
  if (before !== null) {
    const changes = settingChanges(before, server);
    if (changes.length > 0) events.push({ t: at, kind: 'settingsChanged', message: changes.join(', ') });
  }
  const had = state.capabilities;
  if (had !== null) {
    for (const { key, what } of PRIVILEGES) {
      if (had[key] && !capabilities[key])
        events.push({ t: at, kind: 'privilegeLost', message: `can no longer read ${what}` });
      if (!had[key] && capabilities[key])
        events.push({ t: at, kind: 'privilegeRegained', message: `can read ${what} again` });
    }
  }
  return { state: { ...state, server, capabilities }, events };
}

/** "io_combine_limit 128kB → 8kB" for each setting whose shown value changed, appeared or went. */
export function settingChanges(before: ServerInfo, after: ServerInfo): string[] {
  return changedByKey(
    before.settings,
    after.settings,
    (setting) => setting.name,
    (setting) => setting.display,
  ).map(({ key, was, is }) => `${key} ${was ?? '(none)'} → ${is ?? '(none)'}`);
}

/**
 * "track_io_timing pass → warn" for each audit finding whose level changed, appeared or went. A
 * finding is one rule about one thing (a tablespace's override shares its rule with the others
 * and differs by title); a new value at the same level is a settings change, not an audit change.
 */
export function auditChanges(before: readonly AuditFinding[], after: readonly AuditFinding[]): string[] {
  const titles = new Map([...before, ...after].map((finding) => [keyOf(finding), finding.title]));
  return changedByKey(before, after, keyOf, (finding) => finding.level).map(
    ({ key, was, is }) => `${titles.get(key) ?? key} ${was ?? '(not checked)'} → ${is ?? '(not checked)'}`,
  );

  function keyOf(finding: AuditFinding): string {
    return `${finding.rule}\u0000${finding.title}`;
  }
}

/** The keys (sorted) whose value differs between two lists, with both values; undefined where a key is absent. */
function changedByKey<T, V>(
  before: readonly T[],
  after: readonly T[],
  keyOf: (item: T) => string,
  valueOf: (item: T) => V,
): { key: string; was: V | undefined; is: V | undefined }[] {
  const old = new Map(before.map((item) => [keyOf(item), valueOf(item)]));
  const now = new Map(after.map((item) => [keyOf(item), valueOf(item)]));
  const keys = [...new Set([...old.keys(), ...now.keys()])].sort();
  return keys.map((key) => ({ key, was: old.get(key), is: now.get(key) })).filter(({ was, is }) => was !== is);
}
