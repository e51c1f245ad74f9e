import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { clientConfigFromUrl } from '../postgres/libpqSsl.ts';
import type { Logger } from '../system/logger.ts';
import { waitAtMost } from '../system/waitAtMost.ts';

/**
 * Which replica samples which target, when several aioscope processes share one store: each target
 * is owned through a PostgreSQL advisory lock on the store, held by the owning replica's session.
 *
 * Why advisory locks and not a lease table: the server releases a session's locks the moment the
 * session ends, so a replica killed with -9 (its socket closed by the kernel) frees its targets at
 * once, with no clock to trust and no heartbeat rows to write 20 times a minute per target. A
 * replica cut off by the network is found out by TCP keepalives set on its session (about 4 s),
 * after which the server ends the session and its locks go. Replicas are counted the same way: each
 * holds one lock in the replica class, and pg_locks, readable by any role, lists them.
 *
 * Each replica takes up to ⌊targets ÷ replicas⌋, and one more once no other replica holds fewer
 * (holdLimit), preferring targets by rendezvous hashing (so two replicas starting together reach
 * for different ones), and gives back what is over that when another replica appears: the
 * targets end up spread evenly, and a handover is one check interval.
 * A target given back stops being sampled (the listeners are awaited) before its lock goes, so the
 * replica taking it never samples it while this one still does.
 *
 * While the store is away this replica keeps sampling what it owned, but it cannot know whether
 * another replica took a target meanwhile (its session, and so its locks, may be gone): what it
 * records waits (`unconfirmed()` gates the history store's writes) until the session is back and
 * the locks are taken again. A target found taken by then is dropped, and so are its frames not yet
 * stored (`onLost`): the other replica sampled it meanwhile, and the store must never hold two
 * samplers' frames for one moment. A replica cut off from the store alone would not learn that
 * before the path comes back: the replica that took a target says so over the live adapter
 * (`takenElsewhere`), and this one stops sampling it at once.
 *
 * After the store itself restarted every session is new, and the first replica back would count
 * itself alone and take every free target, among them those the others are about to take back:
 * for REJOIN_GRACE_MS after its session comes back to a restarted store (pg_postmaster_start_time
 * moved), a replica takes back only what it owned.
 */

/** pg_advisory_lock(int4, int4) classes: 'aior' for replicas, 'aiot' for targets. */
export const REPLICA_LOCK_CLASS = 0x61696f72;
export const TARGET_LOCK_CLASS = 0x61696f74;
/**
 * A departed replica's targets are taken at the survivors' next check: the interval is most of a
 * failover's wait. A check at rest is one query on the store (the replicas in pg_locks).
 */
export const DEFAULT_CHECK_INTERVAL_MS = 250;

/** The int4 a name locks under (two names colliding would only make one wait for the other's lock). */
export function lockKey(name: string): number {
  return createHash('sha256').update(name).digest().readInt32BE(0);
}

/** The order a replica prefers targets in: highest hash of (replica, target) first. */
export function preferenceOrder(replicaId: string, targets: readonly string[]): string[] {
  // One hash per target, not two per comparison: a sort of 60 targets hashed ~700 times a check.
  const scored = targets.map((target) => ({
    target,
    score: createHash('sha256').update(`${replicaId}\u0000${target}`).digest('hex'),
  }));
  scored.sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : 0));
  return scored.map(({ target }) => target);
}

/** This process among the replicas: its host and pid (what an operator looks for), and a nonce for a reused pid. */
export function newReplicaId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** At most this many targets per replica: an even share, rounded up. */
export function shareOf(targets: number, replicas: number): number {
  return replicas <= 0 ? targets : Math.ceil(targets / replicas);
}

/**
 * How many targets a replica holds at most now. An even share rounded down, and the one left over
 * (targets ÷ replicas not whole) only while every other replica holds the rounded-down share: with
 * 4 targets and 3 replicas, rounding up alone left 2, 2, 0 for good, as nobody held more than
 * its share of 2. `fewestElsewhere` is the fewest any other replica holds (Infinity: none).
 */
export function holdLimit(targets: number, replicas: number, fewestElsewhere: number): number {
  if (replicas <= 1) return targets;
  const floor = Math.floor(targets / replicas);
  return fewestElsewhere >= floor ? shareOf(targets, replicas) : floor;
}

export interface OwnershipOptions {
  connectionString: string;
  replicaId: string;
  log: Logger;
  checkIntervalMs?: number;
  /** Seconds of silence before the server probes this replica's session, and probes before it gives up. */
  keepalive?: { idleSeconds: number; intervalSeconds: number; count: number };
}

export interface OwnershipState {
  owned: ReadonlySet<string>;
  replicas: number;
  /** Whether the store answered the last check (ownership is kept, not given up, while it does not). */
  connected: boolean;
  /** Why the last check failed, while the store does not answer; null once it does. */
  storeError: string | null;
}

const ownedKey = (owned: ReadonlySet<string>): string => [...owned].sort().join('\u0000');

export type OwnershipListener = (state: OwnershipState) => void | Promise<void>;

/** The server ends a check's query after this long (statement_timeout). */
const STATEMENT_TIMEOUT_MS = 5_000;
/**
 * This process gives up on a query after this long: a network path that went dead answers
 * nothing, not even the server's timeout, and TCP alone would wait for hours.
 */
export const QUERY_WAIT_MS = STATEMENT_TIMEOUT_MS + 1_000;

/**
 * After its session comes back to a restarted store, how long a replica takes nothing new: the
 * others, back at their next check, take theirs first. At least a few check intervals, for a busy
 * machine.
 */
export const REJOIN_GRACE_MS = 2_000;

/** How long the session may take to answer when another replica says it took one of this one's targets. */
export const PROBE_WAIT_MS = 2_000;

/** How long a change's listeners may take before given-back targets are unlocked anyway. */
export const LISTENER_WAIT_MS = 2_000;

export class TargetOwnership {
  private client: pg.Client | null = null;
  private targets: string[] = [];
  /** preferenceOrder of the targets, computed when they change rather than at every check. */
  private order: string[] = [];
  private readonly owned = new Set<string>();
  private replicas = 0;
  private storeError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private stopped = false;
  private readonly listeners = new Set<OwnershipListener>();
  private readonly lostListeners = new Set<(targets: ReadonlySet<string>) => void>();
  /** Owned before the session was lost, and found taken by another replica when it came back. */
  private lostMeanwhile = new Set<string>();
  /** Whether the last check answered with the locks held and the lost targets already dropped. */
  private confirmed = false;
  /** The owned targets the listeners last heard of (ownedKey). */
  private emitted = '';
  /** The listeners' work on the last change told, over once they are (or LISTENER_WAIT_MS). */
  private lastTold: Promise<void> = Promise.resolve();
  /** When the store last started (pg_postmaster_start_time), as the last session read it. */
  private storeStartedAt: string | null = null;
  /** When a session came back to a store that had restarted meanwhile (Date.now()), or null. */
  private rejoinedAt: number | null = null;
  /** connect() is taking the owned targets' locks again: what another replica says waits for it. */
  private connecting = false;
  /** Targets another replica said it took while connect() ran: dropped if it fails. */
  private readonly heardWhileConnecting = new Set<string>();
  /** Targets taken over from another replica or given back: for /metrics. */
  handovers = 0;

  constructor(private readonly options: OwnershipOptions) {}

  state(): OwnershipState {
    const connected = this.client !== null;
    return {
      owned: new Set(this.owned),
      replicas: this.replicas,
      connected,
      storeError: connected ? null : (this.storeError ?? 'not connected yet'),
    };
  }

  /** `listener` is awaited before targets it no longer owns are given back (it stops sampling them). */
  onChange(listener: OwnershipListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Targets owned before the store went away and taken by another replica meanwhile, told once the
   * listeners of onChange have stopped sampling them: what was recorded of them since is not to be
   * written.
   */
  onLost(listener: (targets: ReadonlySet<string>) => void): () => void {
    this.lostListeners.add(listener);
    return () => void this.lostListeners.delete(listener);
  }

  /**
   * Null while the store confirms this replica's ownership (frames recorded here may be written);
   * otherwise why not: the store is away, or the session is back but its targets not yet checked.
   */
  unconfirmed(): string | null {
    if (this.confirmed) return null;
    if (this.stopped) return 'this replica has given its targets back';
    return `this replica's ownership of its targets is not confirmed by the store: ${this.storeError ?? 'not connected yet'}`;
  }

  /**
   * Another replica says it samples `target` now, so it holds the target's lock, and this replica
   * cannot: its session must be gone, ended by the store while the path to it is dead (the store's
   * keepalives end it in about 4 s, this replica's own timeout notices later). The target is
   * dropped as if found taken on the way back (onLost once the store answers again). Unless the
   * session answers at once: then the lock is this replica's and the word an old one.
   */
  async takenElsewhere(target: string): Promise<void> {
    if (this.stopped || !this.owned.has(target)) return;
    // A session being opened settles it itself: it takes each owned target's lock again or drops it.
    if (this.connecting) return void this.heardWhileConnecting.add(target);
    if (this.client !== null && (await this.sessionAnswers())) return;
    // A failed probe ends the session, and a check may have begun opening another meanwhile.
    if (this.connecting) return void this.heardWhileConnecting.add(target);
    if (!this.owned.has(target)) return;
    this.confirmed = false;
    this.owned.delete(target);
    this.lostMeanwhile.add(target);
    this.options.log.warn(
      `target ownership: ${target} is sampled by another replica while the store is away: stopped here`,
    );
    await this.emit();
  }

  /**
   * Whether the session answers within PROBE_WAIT_MS. One that does not is ended, as a failed
   * check ends it, so no lock outlives what this replica believes it owns; the next check connects
   * again and takes back what is still free.
   */
  private async sessionAnswers(): Promise<boolean> {
    const client = this.client;
    if (client === null) return false;
    // node-postgres reads query_timeout from a query's config too; its type does not list it.
    const probe: pg.QueryConfig & { query_timeout: number } = { text: 'SELECT 1', query_timeout: PROBE_WAIT_MS };
    try {
      await client.query(probe);
      return true;
    } catch {
      if (this.client === client) this.dropSession();
      return false;
    }
  }

  /** Ends the session (its locks go with it): the next check connects again and takes them back. */
  private dropSession(): void {
    const client = this.client;
    this.client = null;
    this.confirmed = false;
    void client?.end().catch(() => undefined);
  }

  /** The targets of the targets file; those no longer listed are given back at the next check. */
  setTargets(ids: readonly string[]): void {
    this.targets = [...new Set(ids)];
    this.order = preferenceOrder(this.options.replicaId, this.targets);
    void this.check();
  }

  /** Checks once now (at start, so the first targets are taken before the app serves), then every interval. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Gives every target back (ending the session frees its locks) so the others take them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.confirmed = false;
    if (this.timer !== null) clearInterval(this.timer);
    await this.checking;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    if (this.owned.size > 0) {
      this.owned.clear();
      await this.emit();
    }
  }

  /** One check; overlapping calls share the one in flight. */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.checking ??= this.checkOnce().finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    let answered = false;
    let client: pg.Client | null = null;
    try {
      client = this.client ?? (await this.connect());
      // Before anything is taken: a target dropped now and taken again in this check must not have
      // its new frames dropped with the old ones.
      await this.tellLost();
      const { replicas, fewestElsewhere } = await this.countReplicas(client);
      this.replicas = replicas;
      const limit = holdLimit(this.targets.length, replicas, fewestElsewhere);
      const listed = new Set(this.targets);
      const order = this.order;
      // Just back to a restarted store: the others may not have taken theirs back yet, so their
      // counts say nothing; hold what is held, take nothing new (REJOIN_GRACE_MS).
      const rejoining = this.rejoinedAt !== null && Date.now() - this.rejoinedAt < this.rejoinGraceMs();
      const giveBack = [...this.owned].filter((target) => !listed.has(target));
      // Over the limit (another replica appeared, or holds too few): given back, least preferred first.
      for (const target of rejoining ? [] : [...order].reverse()) {
        if (this.owned.size - giveBack.length <= limit) break;
        if (this.owned.has(target) && listed.has(target)) giveBack.push(target);
      }
      if (giveBack.length > 0) {
        // Sampling stops before the locks go: the replica that takes a target next must not
        // record a frame while this one still does.
        for (const target of giveBack) this.owned.delete(target);
        await this.emit();
        for (const target of giveBack) {
          await client.query('SELECT pg_advisory_unlock($1, $2)', [TARGET_LOCK_CLASS, lockKey(target)]);
          this.handovers++;
        }
      }
      for (const target of rejoining ? [] : order) {
        if (this.owned.size >= limit) break;
        if (this.owned.has(target)) continue;
        const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [
          TARGET_LOCK_CLASS,
          lockKey(target),
        ]);
        if (rows[0]?.taken === true) {
          this.owned.add(target);
          this.handovers++;
        }
      }
      if (this.storeError !== null) this.options.log.info('target ownership: the store answers again');
      this.storeError = null;
      answered = true;
    } catch (error) {
      // The store is unreachable: keep sampling what is owned (no target goes unsampled); the
      // session is gone, so the next check connects again and takes the locks back, dropping any
      // another replica took meanwhile.
      this.dropSession();
      const reason = error instanceof Error ? error.message : String(error);
      // Once per reason, not at every check while the store stays away.
      if (reason !== this.storeError) this.options.log.warn(`target ownership: ${reason}`);
      this.storeError = reason;
    }
    if (ownedKey(this.owned) !== this.emitted) await this.emit();
    if (!answered || this.stopped) return;
    // Not if the session was lost meanwhile (its 'end', a failed probe): its locks may be gone.
    this.confirmed = client !== null && this.client === client;
  }

  /**
   * Targets found taken by another replica while the store was away (connect, takenElsewhere):
   * once the listeners have stopped sampling them, the onLost listeners drop what was recorded of
   * them meanwhile. Only with the store answering, so a session was had and they are known taken.
   */
  private async tellLost(): Promise<void> {
    if (this.lostMeanwhile.size === 0 || this.stopped) return;
    // takenElsewhere may have told of a drop whose listeners are still at work (an apply waiting
    // behind another): their monitors must have stopped first.
    if (ownedKey(this.owned) !== this.emitted) await this.emit();
    else await this.lastTold;
    const lost = this.lostMeanwhile;
    this.lostMeanwhile = new Set();
    this.options.log.warn(
      `target ownership: ${[...lost].join(', ')} taken by another replica while the store was away`,
    );
    for (const listener of this.lostListeners) listener(lost);
  }

  private async connect(): Promise<pg.Client> {
    this.confirmed = false;
    this.connecting = true;
    try {
      const client = await this.openSession();
      // Each owned target's lock was taken again or the target dropped: what was heard meanwhile is settled.
      this.heardWhileConnecting.clear();
      return client;
    } catch (error) {
      // No session: another replica's word stands, as it would have without the attempt.
      for (const target of this.heardWhileConnecting) {
        if (this.owned.delete(target)) this.lostMeanwhile.add(target);
      }
      this.heardWhileConnecting.clear();
      throw error;
    } finally {
      this.connecting = false;
    }
  }

  private async openSession(): Promise<pg.Client> {
    const client = new pg.Client({
      ...clientConfigFromUrl(this.options.connectionString),
      application_name: `aioscope replica ${this.options.replicaId}`,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      query_timeout: QUERY_WAIT_MS,
    });
    client.on('error', () => undefined);
    // A session that ends between checks may have taken its locks with it: nothing recorded from
    // now on is written until a check has taken them again.
    client.on('end', () => {
      if (this.client === client) this.confirmed = false;
    });
    await client.connect();
    let storeStartedAt: string | null;
    try {
      const { idleSeconds, intervalSeconds, count } = this.options.keepalive ?? {
        idleSeconds: 2,
        intervalSeconds: 1,
        count: 2,
      };
      await client.query(
        `SET tcp_keepalives_idle = ${idleSeconds}; SET tcp_keepalives_interval = ${intervalSeconds}; SET tcp_keepalives_count = ${count}`,
      );
      const { rows: started } = await client.query<{ at: string }>('SELECT pg_postmaster_start_time()::text AS at');
      storeStartedAt = started[0]?.at ?? null;
      await client.query('SELECT pg_advisory_lock($1, $2)', [REPLICA_LOCK_CLASS, lockKey(this.options.replicaId)]);
      // Targets owned before the session was lost: ours again unless another replica took them.
      for (const target of [...this.owned]) {
        const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [
          TARGET_LOCK_CLASS,
          lockKey(target),
        ]);
        // Nothing else drops an owned target while this runs (takenElsewhere waits for it, stop()
        // for the check), so a lock taken here is always for a target still owned.
        if (rows[0]?.taken !== true) {
          this.owned.delete(target);
          this.lostMeanwhile.add(target);
        }
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    // The store restarted since the last session: every replica's session is new, and the others
    // are about to take theirs back. A session lost alone (a network path) needs no wait.
    if (this.storeStartedAt !== null && storeStartedAt !== this.storeStartedAt) this.rejoinedAt = Date.now();
    this.storeStartedAt = storeStartedAt;
    return client;
  }

  private rejoinGraceMs(): number {
    return Math.max(REJOIN_GRACE_MS, 4 * (this.options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS));
  }

  /** The replicas (their sessions' replica locks) and the fewest targets another of them holds, in one read of pg_locks. */
  private async countReplicas(client: pg.Client): Promise<{ replicas: number; fewestElsewhere: number }> {
    const { rows } = await client.query<{ mine: boolean; targets: string }>(
      `SELECT pid = pg_backend_pid() AS mine, count(*) FILTER (WHERE classid = $2::bigint::oid) AS targets
         FROM pg_locks
        WHERE locktype = 'advisory' AND objsubid = 2 AND granted
          AND classid IN ($1::bigint::oid, $2::bigint::oid)
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        GROUP BY pid
       HAVING bool_or(classid = $1::bigint::oid)`,
      [REPLICA_LOCK_CLASS, TARGET_LOCK_CLASS],
    );
    const others = rows.filter((row) => !row.mine).map((row) => Number(row.targets));
    return { replicas: Math.max(1, rows.length), fewestElsewhere: Math.min(Infinity, ...others) };
  }

  /**
   * Tells the listeners and waits for them, at most LISTENER_WAIT_MS: a monitor stuck stopping (a
   * slow server) must not hold ownership.
   */
  private async emit(): Promise<void> {
    const state = this.state();
    this.emitted = ownedKey(state.owned);
    const told = waitAtMost(
      () => Promise.all([...this.listeners].map(async (listener) => listener(state))),
      LISTENER_WAIT_MS,
    );
    this.lastTold = told;
    await told;
  }
}
