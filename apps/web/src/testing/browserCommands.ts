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

/** The side Compare tests name for the PostgreSQL 17 side (core/testing sideOf17). */
const PG17_SIDE = 'pg17.10';

/** GET /api/compare as the server answers it for two recorded sides, built in Node by core's compare. */
const recordedCompare: BrowserCommand<[a: string, b: string]> = async ({ project }, a, b) => {
  const testing = await project.import<CoreTesting>('@aioscope/core/testing');
  const core = await project.import<typeof import('@aioscope/core')>('@aioscope/core');
  const side = (name: string): ReturnType<typeof core.compareSide> =>
    core.compareSide(name === PG17_SIDE ? testing.sideOf17() : testing.sideOfRecording(name));
  return testing.overTheWire(core.compareSides(side(a), side(b)));
};

export const componentTestCommands = { recordedPayloads, recordedCompare };
