import type { ServerInfo } from '@aioscope/spec';
import type { CompareSideInput } from '../compare.ts';
import { diffIoCounters, parseStatIoRows, type StatIoQueryRow } from '../ioStats.ts';
import { rollup } from '../rollups.ts';
import { parseSetting, type SettingQueryRow } from '../settings.ts';
import { loadFixture } from '../testFixtures.ts';
import { buildPayloads, recordedServers, type RecordedServer } from './recordedPayloads.ts';

function recorded(name: string): RecordedServer {
  const server = recordedServers().find((candidate) => candidate.name.startsWith(name));
  if (server === undefined) throw new Error(`no recording ${name}`);
  return server;
}

/** One side made of a real server's recorded cold scan, as the route would read it from the store. */
export function sideOfRecording(name: string): CompareSideInput {
  const { frames, ioDeltas, summary } = buildPayloads(recorded(name));
  const from = Math.floor(frames[0]?.t ?? 0);
  const to = Math.ceil(Math.max(...frames.map((frame) => frame.t), ...ioDeltas.map((delta) => delta.t))) + 1;
  return {
    targetId: name,
    from,
    to,
    about: { target: { name }, ...summary },
    points: rollup(frames, ioDeltas, from, to, 1000),
    stepMs: 1000,
    raw: { frames, scansBefore: null },
    settingsCaveat: null,
  };
}

/**
 * A PostgreSQL 17 side: the settings recorded from a real 17.10 (pg17.10-audit.json) and pg_stat_io
 * deltas of the hand-written 16/17 fixture (reads × op_bytes: 8 kB per read by construction).
 * No frames: 17 has no pg_aios.
 */
export function sideOf17(): CompareSideInput {
  const audit = loadFixture<{ pgMonitor: { settings: SettingQueryRow[] } }>('pg17.10-audit.json');
  const stat = loadFixture<{ before: StatIoQueryRow[]; after: StatIoQueryRow[] }>('pg16-stat-io.json');
  const before = parseStatIoRows(stat.before);
  const after = parseStatIoRows(stat.after);
  if (before === null || after === null) throw new Error('pg16-stat-io.json has no rows');
  const delta = diffIoCounters(before, after);
  const server: ServerInfo = {
    ...{ version: '17.10', versionNum: 170010, ioMethod: null, ioCombineLimitBytes: 262144 },
    ...{ ioMaxCombineLimitBytes: null, blockSize: 8192, startedAt: null },
    settings: audit.pgMonitor.settings.map(parseSetting),
  };
  const capabilities = { hasPgAios: false, canReadPgAios: false, statIoHasBytes: false, canSeeAllActivity: true };
  return {
    targetId: 'pg17',
    from: before.t,
    to: after.t + 1,
    about: { target: { name: 'pg17' }, server, capabilities, sampleRateHz: 20, statRateHz: 1 },
    points: rollup([], [delta], before.t, after.t + 1, 1000),
    stepMs: 1000,
    raw: { frames: [], scansBefore: null },
    settingsCaveat: null,
  };
}
