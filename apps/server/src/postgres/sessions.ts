import pg from 'pg';
import type { ClientConfig } from 'pg';

export const APPLICATION_NAME = 'aioscope';

export interface SessionOptions {
  /** Server-side limit for each statement, milliseconds. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/**
 * Opens one polite monitoring session: application_name aioscope (so a DBA can find it), a
 * statement_timeout (so a hung server ends our query, not us), and a client-side query timeout a
 * little longer as a last resort when the server cannot even answer.
 */
export async function openSession(config: ClientConfig, options: SessionOptions): Promise<pg.Client> {
  const client = new pg.Client({
    ...config,
    application_name: APPLICATION_NAME,
    statement_timeout: options.statementTimeoutMs,
    ...(options.statementTimeoutMs > 0 ? { query_timeout: options.statementTimeoutMs + 2_000 } : {}),
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
  });
  // A connection that breaks between queries emits 'error'; the next query reports it instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

export async function closeSession(client: pg.Client | null): Promise<void> {
  if (client === null) return;
  await client.end().catch(() => undefined);
}

/** One line, no stack: what went wrong talking to the server. */
export function describeDatabaseError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const message = error.message.replace(/\s+/g, ' ').trim();
    if (code === 'ECONNREFUSED') return `connection refused (${message.replace(/^connect /, '')})`;
    if (code === 'ENOTFOUND') return `host not found (${message.replace(/^getaddrinfo /, '')})`;
    if (code === '57014') return 'query cancelled by statement_timeout (server slow or blocked)';
    // PostgreSQL's own text often says so already ("permission denied for table t"); "must be
    // owner of table t" does not.
    if (code === '42501') return /^permission denied\b/i.test(message) ? message : `permission denied: ${message}`;
    if (code === '28P01' || code === '28000') return `authentication failed: ${message}`;
    if (code === '3D000') return message;
    if (message === 'Query read timeout') return 'no answer from the server in time (hung or overloaded)';
    return message === '' ? String(error) : message;
  }
  return String(error);
}
