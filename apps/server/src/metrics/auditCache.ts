import type { AuditReport } from '@aioscope/spec';

/**
 * The audit reads pg_settings, pg_tablespace, pg_db_role_setting and pg_config on the target (five
 * queries on the inspector's session, sampler/auditRead.ts), and settings change rarely: a scrape
 * every few seconds must not cost the target five queries each time.
 */
export const AUDIT_REFRESH_MS = 30_000;

/**
 * A target's settings audit as /metrics reports it: the newest report, refreshed in the
 * background at most every AUDIT_REFRESH_MS, so a scrape never waits on the target's queries. A
 * failed refresh keeps the previous report (its checked-at time says how old it is).
 */
export class AuditCache {
  private report: AuditReport | null = null;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private readonly listeners = new Set<(report: AuditReport) => void>();

  constructor(
    private readonly read: () => Promise<AuditReport>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The newest report, or null before the first one; starts a refresh when one is due and allowed. */
  current(mayRefresh: boolean): AuditReport | null {
    if (mayRefresh && this.pending === null && this.now() - this.lastAttempt >= AUDIT_REFRESH_MS) {
      this.lastAttempt = this.now();
      this.pending = this.read()
        .then(
          (report) => {
            this.report = report;
            // A listener that throws must neither keep the report from the others nor turn a
            // good read into an unhandled rejection: readers only take note of the report.
            for (const listener of this.listeners) {
              try {
                listener(report);
              } catch {
                continue;
              }
            }
          },
          () => undefined,
        )
        .finally(() => (this.pending = null));
    }
    return this.report;
  }

  /**
   * Reads the audit again now, whatever the interval says (the settings just changed), after the
   * refresh already running if any. Resolves once the new report is in (or the read failed).
   */
  async refresh(): Promise<void> {
    await this.pending;
    this.lastAttempt = Number.NEGATIVE_INFINITY;
    this.current(true);
    await this.pending;
  }

  /** Calls `listener` with every new report (the recorder marks audit changes); returns the unsubscribe function. */
  onReport(listener: (report: AuditReport) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Resolves when no refresh is running (tests and shutdown). */
  async settled(): Promise<void> {
    await this.pending;
  }
}

const shared = new WeakMap<object, AuditCache>();

/**
 * One cache per target for every reader (/metrics, the fleet overview, the recorder), so a target is audited
 * at most once per AUDIT_REFRESH_MS however many readers ask. The first reader's clock is kept.
 */
export function sharedAuditCache(source: { audit(): Promise<AuditReport> }, now: () => number = Date.now): AuditCache {
  let cache = shared.get(source);
  if (cache === undefined) {
    cache = new AuditCache(() => source.audit(), now);
    shared.set(source, cache);
  }
  return cache;
}
