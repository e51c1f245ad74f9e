import { ATTENTION_WEIGHTS, type UpgradeTargetVersion } from '@aioscope/core';
import type {
  ClientToServerEvents,
  LiveSnapshot,
  OverviewRow,
  ServerToClientEvents,
  TargetStatus,
  TargetSummary,
} from '@aioscope/spec';
import type { Server as SocketServer } from 'socket.io';
import { describeDatabaseError } from '../postgres/sessions.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';
import type { AdapterHealth, LiveAdapterHealth } from './redisAdapter.ts';
import type { WatchingAnnouncement } from './remoteInterest.ts';
import { sharedWithin } from './sharedWithin.ts';

/** How long a replica waits for the others to answer a request about a target it does not sample. */
export const REMOTE_ANSWER_TIMEOUT_MS = 2_000;
/**
 * The other replicas' summaries and overview rows, asked for at most once in this long and shared
 * by the requests meanwhile: pages poll them (the overview every 2 s), and every ask is answered
 * by every replica through Redis.
 */
export const REMOTE_LIST_SHARED_MS = 1_000;

/** What the owner of a target answers to a REST request relayed to it: the body, or an error and its status. */
export type RemoteAnswer = { ok: true; body: unknown } | { ok: false; status: 404 | 503; error: string };

/** A target's snapshot as its owner answers it to another replica. */
export interface OwnerSnapshot {
  snapshot: LiveSnapshot;
  owner: string | null;
}

/** Between replicas (--adapter): each answers for a target it owns, or null. */
export interface InterServerEvents {
  /** The owner's snapshot and its --replica-name (null: unnamed). */
  snapshotOf: (targetId: string, answer: (reply: OwnerSnapshot | null) => void) => void;
  /** The summaries of the targets a replica samples. */
  summariesOf: (answer: (summaries: TargetSummary[]) => void) => void;
  /** The rows of GET /api/overview for the targets a replica samples. */
  overviewOf: (answer: (rows: OverviewRow[]) => void) => void;
  /** GET /api/targets/:id/processes/:pid on the owner. */
  processDetailOf: (targetId: string, pid: number, answer: (reply: RemoteAnswer | null) => void) => void;
  /** GET /api/targets/:id/audit on the owner; null: the next version. */
  auditOf: (targetId: string, targetVersion: number | null, answer: (reply: RemoteAnswer | null) => void) => void;
  /** The targets a replica's viewers watch that it does not sample (live/remoteInterest.ts). */
  watching: WatchingAnnouncement;
  /** A replica started sampling this target: it holds its lock (TargetOwnership.takenElsewhere). */
  taken: (targetId: string) => void;
}

type RelayServer = SocketServer<ClientToServerEvents, ServerToClientEvents, InterServerEvents>;

/**
 * What the other replicas answered to a request, within REMOTE_ANSWER_TIMEOUT_MS (the adapter's
 * own limit is 5 s); `complete` when every replica subscribed to the adapter's channel answered.
 * A replica cut off without Redis noticing yet does not answer: the others' answers still count.
 */
export function askOtherReplicas<T>(
  send: (answer: (error: Error | null, replies: T[]) => void) => void,
): Promise<{ answers: T[]; complete: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answers: T[], complete: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ answers, complete });
    };
    const timer = setTimeout(() => finish([], false), REMOTE_ANSWER_TIMEOUT_MS);
    send((error, replies) => finish(replies, error === null));
  });
}

/** The owner's side: answers the REST requests other replicas relay for the targets it samples. */
export function serveRelayedRequests(io: RelayServer, monitors: ReadonlyMap<string, TargetMonitor>): void {
  const answering = (targetId: unknown, ask: (monitor: TargetMonitor) => Promise<RemoteAnswer>) => {
    const monitor = typeof targetId === 'string' ? monitors.get(targetId) : undefined;
    if (monitor === undefined) return Promise.resolve(null);
    return ask(monitor).catch((error: unknown): RemoteAnswer => ({
      ok: false,
      status: 503,
      error: `target unavailable: ${describeDatabaseError(error)}`,
    }));
  };
  io.on('processDetailOf', (targetId, pid, answer) => {
    void answering(targetId, async (monitor) => {
      const detail = typeof pid === 'number' ? await monitor.processDetail(pid) : null;
      return detail === null
        ? { ok: false, status: 404, error: `no process with pid ${String(pid)}` }
        : { ok: true, body: detail };
    }).then(answer);
  });
  io.on('auditOf', (targetId, targetVersion, answer) => {
    void answering(targetId, async (monitor) => ({
      ok: true,
      body: await monitor.audit((targetVersion ?? undefined) as UpgradeTargetVersion | undefined),
    })).then(answer);
  });
}

/** The targets other replicas sample, as a replica that does not sample them answers for them. */
export interface RemoteTargets {
  /** Their summaries; while the adapter's Redis is lost, the last ones seen, each saying why it is not live. */
  summaries(): Promise<TargetSummary[]>;
  /** Their overview rows; while the adapter's Redis is lost, the last ones seen, each saying why it is not live. */
  overviewRows(): Promise<OverviewRow[]>;
  /** Their owner's answer; null when no replica owns the target. */
  processDetail(targetId: string, pid: number): Promise<RemoteAnswer | null>;
  audit(targetId: string, targetVersion: UpgradeTargetVersion | undefined): Promise<RemoteAnswer | null>;
}

/**
 * Why a target another replica samples is not live here, while the adapter's Redis is lost:
 * 'reconnecting', as Redis is retried and the live view comes back with it (the page's badge).
 */
export function notRelayedStatus(health: AdapterHealth, since: number, last: TargetStatus | null): TargetStatus {
  return {
    state: 'reconnecting',
    message: `sampled by another replica, whose live view cannot reach this one: ${health.reason ?? 'the live adapter is down'}`,
    since,
    lastFrameAt: last?.lastFrameAt ?? null,
    skippedTicks: last?.skippedTicks ?? 0,
  };
}

/**
 * An overview row last seen of a target another replica samples, while the adapter's Redis is
 * lost: what its owner saw then is not known now, so the row says why and only that.
 */
export function notRelayedRow(row: OverviewRow, status: TargetStatus, now: number): OverviewRow {
  const since = Math.round((now - status.since) / 1000);
  return {
    ...row,
    target: { ...row.target, status },
    attention: {
      score: ATTENTION_WEIGHTS.disconnected,
      reasons: [{ kind: 'disconnected', message: `${status.state} for ${since} s: ${status.message ?? ''}` }],
    },
    auditWarnings: null,
    sampling: { ...row.sampling, achievedHz: null, dbCostShare: null },
  };
}

/**
 * What the other replicas answered about the targets they sample, remembered for while Redis is
 * lost (then each says why it is not live); forgotten when every replica answered without it.
 */
function lastSeen<T>(idOf: (item: T) => string, whileLost: (item: T, status: TargetStatus) => T) {
  const seen = new Map<string, T>();
  return {
    answered(found: T[], complete: boolean): T[] {
      if (complete) seen.clear();
      for (const item of found) seen.set(idOf(item), item);
      return found;
    },
    lost(health: AdapterHealth, since: number, statusOf: (item: T) => TargetStatus): T[] {
      return [...seen.values()].map((item) => whileLost(item, notRelayedStatus(health, since, statusOf(item))));
    },
    has: (id: string): boolean => seen.has(id),
  };
}

/** RemoteTargets through the adapter (`io` once the live hub made it): requests go to every replica, the owner answers. */
export function relayedTargets(io: () => RelayServer, health: LiveAdapterHealth | undefined): RemoteTargets {
  const summaries = lastSeen<TargetSummary>(
    (summary) => summary.id,
    (summary, status) => ({ ...summary, status }),
  );
  const rows = lastSeen<OverviewRow>(
    (row) => row.target.id,
    (row, status) => notRelayedRow(row, status, Date.now()),
  );
  let lostSince = Date.now();
  health?.onChange((now) => {
    if (!now.ok) lostSince = Date.now();
  });
  const down = (): AdapterHealth | null => {
    const now = health?.now();
    return now === undefined || now.ok ? null : now;
  };
  const askSummaries = sharedWithin(REMOTE_LIST_SHARED_MS, () =>
    askOtherReplicas<TargetSummary[]>((answer) => io().serverSideEmit('summariesOf', answer)),
  );
  const askRows = sharedWithin(REMOTE_LIST_SHARED_MS, () =>
    askOtherReplicas<OverviewRow[]>((answer) => io().serverSideEmit('overviewOf', answer)),
  );
  /** While Redis is lost, a target seen before is 503 with the reason; one never seen is unknown (null). */
  const ask = async (
    targetId: string,
    send: (answer: (error: Error | null, replies: (RemoteAnswer | null)[]) => void) => void,
  ): Promise<RemoteAnswer | null> => {
    const lost = down();
    if (lost !== null)
      return summaries.has(targetId)
        ? { ok: false, status: 503, error: notRelayedStatus(lost, lostSince, null).message ?? '' }
        : null;
    const { answers } = await askOtherReplicas(send);
    return answers.find((a) => a !== null) ?? null;
  };
  return {
    summaries: async () => {
      const lost = down();
      if (lost !== null) return summaries.lost(lost, lostSince, (summary) => summary.status);
      const { answers, complete } = await askSummaries();
      return summaries.answered(answers.flat(), complete);
    },
    overviewRows: async () => {
      const lost = down();
      if (lost !== null) return rows.lost(lost, lostSince, (row) => row.target.status);
      const { answers, complete } = await askRows();
      return rows.answered(answers.flat(), complete);
    },
    processDetail: (targetId, pid) =>
      ask(targetId, (answer) => io().serverSideEmit('processDetailOf', targetId, pid, answer)),
    audit: (targetId, targetVersion) =>
      ask(targetId, (answer) => io().serverSideEmit('auditOf', targetId, targetVersion ?? null, answer)),
  };
}
