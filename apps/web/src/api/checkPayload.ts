import type { Schema, SchemaError } from '@aioscope/spec';

/**
 * Everything the browser receives from the server is parsed with its spec schema, not cast: a
 * payload that does not match is dropped, so no panel draws a figure the server did not send.
 */

/** At most one warning per payload kind in this period: a broken stream arrives at up to 100 Hz. */
export const WARN_EVERY_MS = 10_000;

/** Where the first issue is and what it says, e.g. `frame.inflight.total.count: expected number`. */
export function describeFirstIssue(error: SchemaError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'no issue reported';
  const path = issue.path.map((key, index) =>
    typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`,
  );
  return `${path.length > 0 ? path.join('') : '(whole payload)'}: ${issue.message}`;
}

export interface PayloadCheckerOptions {
  warn?: (message: string) => void;
  now?: () => number;
}

/** Parses payloads and warns about the ones it drops, once per kind per WARN_EVERY_MS. */
export class PayloadChecker {
  private readonly warn: (message: string) => void;
  private readonly now: () => number;
  private readonly warnedAt = new Map<string, number>();
  private readonly droppedSinceWarning = new Map<string, number>();

  constructor(options: PayloadCheckerOptions = {}) {
    this.warn = options.warn ?? ((message) => console.warn(message));
    this.now = options.now ?? Date.now;
  }

  /** The parsed payload, or undefined when it does not match `schema` (`kind` names it in the warning). */
  check<T>(kind: string, schema: Schema<T>, payload: unknown): T | undefined {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return parsed.data;
    this.noteDropped(kind, parsed.error);
    return undefined;
  }

  private noteDropped(kind: string, error: SchemaError): void {
    const dropped = (this.droppedSinceWarning.get(kind) ?? 0) + 1;
    const now = this.now();
    const last = this.warnedAt.get(kind);
    if (last !== undefined && now - last < WARN_EVERY_MS) {
      this.droppedSinceWarning.set(kind, dropped);
      return;
    }
    this.warnedAt.set(kind, now);
    this.droppedSinceWarning.set(kind, 0);
    const what = dropped === 1 ? `a "${kind}" payload` : `${dropped} "${kind}" payloads since the last warning`;
    this.warn(`aioscope: dropped ${what}: not what the contract describes, at ${describeFirstIssue(error)}`);
  }
}

/** The page's one checker: REST responses and socket events share its warning budget per kind. */
export const payloadChecker = new PayloadChecker();
