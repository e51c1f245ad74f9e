import type { BrowserCommand } from 'vitest/node';
import type { RecordedPayloads } from '@aioscope/core/testing';

/**
 * Commands the component tests call from the browser; they run in vitest's Node process, where the
 * fixtures recorded from real servers can be read (core/testing reads files, which a page cannot).
 * core/testing is TypeScript, so it is loaded through the project's module runner, not Node's import.
 */

type CoreTesting = typeof import('@aioscope/core/testing');

/** The payloads the server would send for one recorded server, as JSON over the wire. */
const recordedPayloads: BrowserCommand<[serverName: string]> = async ({ project }, serverName) => {
  const { buildPayloads, overTheWire, recordedServers } = await project.import<CoreTesting>('@aioscope/core/testing');
  const servers = recordedServers();
  const server = servers.find((candidate) => candidate.name === serverName);
  if (server === undefined) {
    throw new Error(`no recorded server named ${serverName} (recorded: ${servers.map((s) => s.name).join(', ')})`);
  }
  return overTheWire(buildPayloads(server)) as RecordedPayloads;
};

export const componentTestCommands = { recordedPayloads };
