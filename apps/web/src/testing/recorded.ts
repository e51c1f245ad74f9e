import { commands } from 'vitest/browser';
import type { RecordedPayloads } from '@aioscope/core/testing';
import type { CompareResult } from '@aioscope/spec';

declare module 'vitest/browser' {
  interface BrowserCommands {
    recordedPayloads: (serverName: string) => Promise<RecordedPayloads>;
    recordedCompare: (a: string, b: string) => Promise<unknown>;
  }
}

/** The names of packages/core's recordings of real servers (core/testing recordedServers). */
export type RecordedServerName =
  'pg18.4-embedded-worker' | 'pg18.6-io_uring' | 'pg18.6-io_uring-no-grants' | 'pg19beta3-worker' | 'pg15.18';

/** What the server would send about a recorded server, read in Node and passed to the page as JSON. */
export function recordedPayloads(serverName: RecordedServerName): Promise<RecordedPayloads> {
  return commands.recordedPayloads(serverName);
}

/** GET /api/compare's answer for two recorded sides ('pg17.10': a PostgreSQL 17 side), as JSON. */
export async function recordedCompare(
  a: RecordedServerName | 'pg17.10',
  b: RecordedServerName | 'pg17.10',
): Promise<CompareResult> {
  return (await commands.recordedCompare(a, b)) as CompareResult;
}
