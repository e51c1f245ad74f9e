import { commands } from 'vitest/browser';
import type { RecordedPayloads } from '@aioscope/core/testing';

declare module 'vitest/browser' {
  interface BrowserCommands {
    recordedPayloads: (serverName: string) => Promise<RecordedPayloads>;
  }
}

/** The names of packages/core's recordings of real servers (core/testing recordedServers). */
export type RecordedServerName =
  'pg18.4-embedded-worker' | 'pg18.6-io_uring' | 'pg18.6-io_uring-no-grants' | 'pg19beta3-worker' | 'pg15.18';

/** What the server would send about a recorded server, read in Node and passed to the page as JSON. */
export function recordedPayloads(serverName: RecordedServerName): Promise<RecordedPayloads> {
  return commands.recordedPayloads(serverName);
}
