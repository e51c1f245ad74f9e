import type { ReactNode } from 'react';
import type { TargetSummary } from '@aioscope/spec';

/** What this server or role cannot show, said once at the top, with the fix where there is one. */
export function Banner({ target }: { target: TargetSummary | undefined }): ReactNode {
  const capabilities = target?.capabilities;
  const server = target?.server;
  if (capabilities === null || capabilities === undefined || server === null || server === undefined) return null;
  const messages: string[] = [];
  if (!capabilities.hasPgAios) {
    messages.push(
      `PostgreSQL ${server.version} has no asynchronous I/O (added in 18): pg_stat_io figures are shown; the pg_aios panels stay empty. The settings audit says what 18 will make of this server's settings.`,
    );
  } else if (!capabilities.canReadPgAios) {
    messages.push(
      'This role cannot read pg_aios: reads in flight, the scan map and read sizes stay empty. Fix: GRANT pg_read_all_stats TO <role>; (or GRANT pg_monitor).',
    );
  }
  if (!capabilities.canSeeAllActivity) {
    messages.push("Other sessions' wait events and queries are hidden from this role (pg_read_all_stats shows them).");
  }
  if (server.ioMethod === 'sync') messages.push('io_method = sync: asynchronous I/O is off on this server.');
  if (messages.length === 0) return null;
  return (
    <div className="banner" role="status" data-testid="banner">
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  );
}
