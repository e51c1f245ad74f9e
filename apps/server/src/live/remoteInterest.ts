import { randomUUID } from 'node:crypto';

/** How often a replica repeats the targets its viewers watch elsewhere: a lost or missed message heals within it. */
export const ANNOUNCE_MS = 1_000;
/** A replica not heard from for this long (killed, or Redis lost) watches nothing any more. */
export const INTEREST_TTL_MS = 3 * ANNOUNCE_MS;

/** What replicas tell each other: this replica's viewers watch these targets, which it does not sample. */
export type WatchingAnnouncement = (replica: string, targetIds: string[]) => void;

/** The transport the interest travels over: the adapter's serverSideEmit and its listener. */
export interface InterestChannel {
  announce: WatchingAnnouncement;
  onAnnouncement(listener: WatchingAnnouncement): void;
}

/**
 * Which targets have viewers on another replica, so an owner publishes a target's events through
 * the adapter only then (otherwise each frame is encoded and published for nobody). Each
 * replica announces its whole set on each change and every ANNOUNCE_MS; sets expire after
 * INTEREST_TTL_MS. The sets of all replicas are kept whatever this one owns, so a target taken
 * over after a kill is published at once to the viewers already waiting for it.
 */
export class RemoteInterest {
  private readonly self = randomUUID();
  private readonly heard = new Map<string, { targetIds: ReadonlySet<string>; at: number }>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly channel: InterestChannel,
    /** The targets this replica's viewers watch and it does not sample. */
    private readonly watchedHere: () => string[],
    private readonly now: () => number = Date.now,
  ) {
    channel.onAnnouncement((replica, targetIds) => {
      if (replica === this.self || !Array.isArray(targetIds)) return;
      this.heard.set(replica, { targetIds: new Set(targetIds.filter((id) => typeof id === 'string')), at: this.now() });
    });
    this.timer = setInterval(() => this.announce(), ANNOUNCE_MS);
    this.timer.unref();
  }

  /** Tells the other replicas this one's set now (on a change, or before asking for a snapshot). */
  announce(): void {
    // After stop the adapter is closing: a late announcement (a monitor's unsubscribe) is not sent.
    if (this.stopped) return;
    this.channel.announce(this.self, this.watchedHere());
  }

  /** Whether a viewer on another replica, heard from within INTEREST_TTL_MS, watches the target. */
  watchedElsewhere(targetId: string): boolean {
    const oldest = this.now() - INTEREST_TTL_MS;
    for (const [replica, { targetIds, at }] of this.heard) {
      if (at < oldest) this.heard.delete(replica);
      else if (targetIds.has(targetId)) return true;
    }
    return false;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }
}
