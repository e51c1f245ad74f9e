import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenedRecordings, displayFileName, type IngestCost, type OpenSlot } from './openedRecordings.ts';
import { syntheticHistory, syntheticRecording } from './recordingFileFixture.ts';
import { writeRecordingFile } from './recordingFileWriter.ts';
import { RecordingIngestProcess } from './recordingIngestProcess.ts';
import { removeAbandonedRoots } from './temporaryFolders.ts';

const DURATION_MS = 25 * 60_000; // three of the store's 10-minute chunks
const RATE_HZ = 20;
const source = syntheticRecording({ durationMs: DURATION_MS, rateHz: RATE_HZ });
const inMemory = syntheticHistory('recording-1', { durationMs: DURATION_MS, rateHz: RATE_HZ });
const range = source.header.range;

let folder: string;
let file: string;
let temporaryRoot: string;
const catalogs: OpenedRecordings[] = [];

function catalog(options: ConstructorParameters<typeof OpenedRecordings>[0] = {}): OpenedRecordings {
  const made = new OpenedRecordings({ temporaryRoot, ...options });
  catalogs.push(made);
  return made;
}

function slotOf(recordings: OpenedRecordings): OpenSlot {
  const slot = recordings.reserve();
  if (slot === null) throw new Error('no slot');
  return slot;
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'aioscope-opened-test-'));
  file = path.join(folder, 'source.aioscope.gz');
  await writeRecordingFile(inMemory, range, file);
});
afterEach(async () => {
  await Promise.all(catalogs.splice(0).map((made) => made.closeAll()));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

// Each test gets a temporary root of its own, so what a catalog leaves behind can be counted.
beforeAll(async () => {
  temporaryRoot = await mkdtemp(path.join(tmpdir(), 'aioscope-opened-roots-'));
});
afterAll(async () => {
  await rm(temporaryRoot, { recursive: true, force: true });
});

/** Every number to 12 significant digits: what float addition in another order cannot change. */
function rounded(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' ? Number(item.toPrecision(12)) : item)),
  );
}

async function leftOnDisk(): Promise<string[]> {
  const roots = await readdir(temporaryRoot);
  const inside = await Promise.all(
    roots.map(async (root) =>
      (await readdir(path.join(temporaryRoot, root))).filter((name) => name !== 'owner.pid').map((n) => `${root}/${n}`),
    ),
  );
  return inside.flat();
}

describe('OpenedRecordings: a file opened into a database on disk', { timeout: 60_000 }, () => {
  it('serves exactly what the same recording held in memory serves: frames, roll-ups, events', async () => {
    const recordings = catalog();
    const opened = await recordings.open(slotOf(recordings), file, 'source.aioscope.gz');
    expect(opened).toEqual({
      targetId: 'recording-1',
      name: `${source.header.target.name} · source.aioscope.gz`,
      ...range,
    });
    const reader = recordings.get(opened.targetId);
    if (reader === undefined) throw new Error('not opened');

    // Ranges inside one chunk, across chunk edges, and the whole file; mid-range starts need the
    // scan map and processes table in force before them.
    const ranges = [
      { from: range.from, to: range.from + 60_000 },
      { from: range.from + 9 * 60_000 + 123.4, to: range.from + 11 * 60_000 },
      { from: range.from + 61_234, to: range.from + 15 * 60_000 },
      range,
    ];
    for (const asked of ranges) expect(await reader.frames(asked)).toEqual(await inMemory.frames(asked));
    // Sums of seconds (the store) and of frames (in memory) add the same numbers in another order.
    for (const stepMs of [1_000, 10_000, 60_000]) {
      expect(rounded(await reader.rollups(range, stepMs))).toEqual(rounded(await inMemory.rollups(range, stepMs)));
    }
    expect(await reader.events(range)).toEqual(await inMemory.events(range));
    expect(await reader.describe()).toEqual(await inMemory.describe());

    const extent = await reader.extent();
    expect(extent.recording.state).toBe('off');
    expect(extent.raw?.from).toBe(range.from);
    expect(extent.raw?.to).toBe(source.frames.at(-1)?.t);
    expect(extent.retention.rawMs).toBe(DURATION_MS);
  });

  it('opens the file in a process of its own at the lowest CPU priority, and says what it cost', async () => {
    const costs: IngestCost[] = [];
    const recordings = catalog({ onIngested: (cost) => costs.push(cost) });
    await recordings.open(slotOf(recordings), file, 'source.aioscope.gz');
    expect(costs).toHaveLength(1);
    // Its own RSS, node's included: none of it was this process's.
    expect(costs[0]?.peakRssBytes).toBeGreaterThan(20 * 1024 ** 2);
    if (process.platform === 'linux') expect(costs[0]?.priority).toBe(constants.priority.PRIORITY_LOW);
    // Under SCHED_IDLE where util-linux's chrt exists (Debian has it), so it runs only on idle cores.
    if (existsSync('/usr/bin/chrt')) expect(costs[0]?.scheduler).toBe('idle');
  });

  it('describes a recording as a target with no live stream', async () => {
    const recordings = catalog();
    const { targetId } = await recordings.open(slotOf(recordings), file, '/home/me/x.aioscope.gz');
    const summary = recordings.summary(targetId);
    expect(summary?.kind).toBe('recording');
    expect(summary?.recording).toEqual({ ...range, fileName: 'x.aioscope.gz' });
    expect(summary?.status).toMatchObject({
      state: 'error',
      lastFrameAt: source.frames.at(-1)?.t,
      skippedTicks: source.frames.reduce((sum, frame) => sum + frame.skippedTicks, 0),
    });
  });

  it('opens one file at a time: a second slot is refused until the first is released', async () => {
    const recordings = catalog();
    const first = slotOf(recordings);
    expect(recordings.reserve()).toBeNull();
    expect(recordings.opening).toBe(true);
    first.release();
    const second = slotOf(recordings);
    await recordings.open(second, file, 'a.aioscope.gz');
    expect(recordings.opening).toBe(false);
  });

  it('keeps at most its bound, closing the oldest and removing its database', async () => {
    const recordings = catalog({ maxOpen: 2 });
    for (const name of ['a', 'b', 'c']) await recordings.open(slotOf(recordings), file, `${name}.aioscope.gz`);
    expect(recordings.summaries().map((summary) => summary.id)).toEqual(['recording-2', 'recording-3']);
    expect(recordings.get('recording-1')).toBeUndefined();
    await expect.poll(leftOnDisk).toHaveLength(2);
    expect(recordings.close('recording-2')).toBe(true);
    expect(recordings.close('recording-2')).toBe(false);
    await expect.poll(leftOnDisk).toHaveLength(1);
  });

  it('refuses a corrupted file with the reason, adds nothing and leaves nothing on disk', async () => {
    const recordings = catalog();
    const bad = path.join(folder, 'bad.aioscope.gz');
    const header = JSON.stringify({ ...source.header, counts: { frames: 1, ioDeltas: 0, processes: 0, events: 0 } });
    await writeFile(bad, gzipSync(`${header}\n{"k":"frame","v":{"t":"soon"}}\n`));
    await expect(recordings.open(slotOf(recordings), bad, 'bad.aioscope.gz')).rejects.toThrow(
      /^corrupted: line 2: v\.t: /,
    );
    expect(recordings.summaries()).toEqual([]);
    expect(await leftOnDisk()).toEqual([]);
    expect(recordings.opening).toBe(false);
  });

  it('refuses a file past the budget of all opened recordings together, naming both sizes', async () => {
    const recordings = catalog({ maxBytes: 1024 });
    await expect(recordings.open(slotOf(recordings), file, 'big.aioscope.gz')).rejects.toThrow(
      /^opened recordings would take \d+ (kB|MB), over the 1 kB kept for them \(this file: \d+ (kB|MB)\): close an opened recording first$/,
    );
    expect(recordings.summaries()).toEqual([]);
    expect(await leftOnDisk()).toEqual([]);
  });

  it('removes what a released slot made when no file was opened from it', async () => {
    const recordings = catalog();
    const slot = slotOf(recordings);
    await writeFile(path.join(await slot.folder, 'upload.aioscope.gz'), 'half an upload');
    expect(await leftOnDisk()).toHaveLength(1);
    slot.release();
    await expect.poll(leftOnDisk).toEqual([]);
  });
});

describe('OpenedRecordings: one ingest process for every file', { timeout: 60_000 }, () => {
  const processes: RecordingIngestProcess[] = [];
  afterEach(() => {
    for (const made of processes.splice(0)) made.stop();
  });
  function ownProcess(): {
    recordings: OpenedRecordings;
    ingest: RecordingIngestProcess;
    pids: number[];
  } {
    const ingest = new RecordingIngestProcess();
    processes.push(ingest);
    const pids: number[] = [];
    const recordings = catalog({ ingestProcess: ingest, onIngested: (cost) => pids.push(cost.pid) });
    return { recordings, ingest, pids };
  }

  it('opens every file in the same process, and a refused file leaves it running', async () => {
    const { recordings, ingest, pids } = ownProcess();
    await recordings.open(slotOf(recordings), file, 'a.aioscope.gz');
    const bad = path.join(folder, 'refused.aioscope.gz');
    await writeFile(bad, gzipSync('{"format":"something else"}\n'));
    await expect(recordings.open(slotOf(recordings), bad, 'bad.aioscope.gz')).rejects.toThrow(
      /not an aioscope recording/,
    );
    const truncated = path.join(folder, 'truncated.aioscope.gz');
    await writeFile(truncated, gzipSync(`${JSON.stringify(source.header)}\n`).subarray(0, 40));
    await expect(recordings.open(slotOf(recordings), truncated, 'cut.aioscope.gz')).rejects.toThrow();
    await recordings.open(slotOf(recordings), file, 'b.aioscope.gz');
    expect(pids).toHaveLength(2);
    expect(pids[1]).toBe(pids[0]);
    expect(ingest.pid).toBe(pids[0]);
  });

  it('fails only the file in progress when the process is killed, and opens the next in a new one', async () => {
    const { recordings, ingest, pids } = ownProcess();
    await recordings.open(slotOf(recordings), file, 'first.aioscope.gz');
    const killed = ingest.pid;
    if (killed === undefined) throw new Error('no ingest process');
    const opening = recordings.open(slotOf(recordings), file, 'killed.aioscope.gz');
    opening.catch(() => undefined);
    // Killed mid-file: once its database exists the process is writing it.
    const writing = async (): Promise<boolean> => {
      const folders = await leftOnDisk();
      return folders.length === 2 && existsSync(path.join(temporaryRoot, folders.at(-1) ?? '', 'recording.duckdb'));
    };
    await expect.poll(writing, { interval: 5, timeout: 30_000 }).toBe(true);
    process.kill(killed, 'SIGKILL');
    await expect(opening).rejects.toThrow(
      /^the process opening the recording ended \(SIGKILL\) before it finished: the file was not opened/,
    );
    expect(recordings.opening).toBe(false);
    expect(recordings.summaries().map((summary) => summary.recording?.fileName)).toEqual(['first.aioscope.gz']);
    await expect.poll(leftOnDisk).toHaveLength(1);

    await recordings.open(slotOf(recordings), file, 'next.aioscope.gz');
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(killed);
    expect(recordings.summaries()).toHaveLength(2);
  });
});

describe('OpenedRecordings: the ingest process when idle', { timeout: 60_000 }, () => {
  it('ends after its idle time with no file, and the next file starts another', async () => {
    const ingest = new RecordingIngestProcess(300);
    const pids: number[] = [];
    const recordings = catalog({ ingestProcess: ingest, onIngested: (cost) => pids.push(cost.pid) });
    try {
      await recordings.open(slotOf(recordings), file, 'a.aioscope.gz');
      const first = pids[0];
      if (first === undefined) throw new Error('no pid');
      expect(ingest.pid).toBe(first);
      await expect.poll(() => ingest.pid, { timeout: 10_000 }).toBeUndefined();
      await expect.poll(() => isRunning(first), { timeout: 10_000 }).toBe(false);
      await recordings.open(slotOf(recordings), file, 'b.aioscope.gz');
      expect(pids[1]).not.toBe(first);
    } finally {
      ingest.stop();
    }
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('removeAbandonedRoots', () => {
  it('removes the roots of processes that no longer run and keeps those of running ones', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'aioscope-abandoned-'));
    try {
      for (const [name, pid] of [
        ['aioscope-opened-mine', process.pid],
        ['aioscope-opened-gone', 2 ** 22 + 7], // above Linux's largest pid
      ] as const) {
        await mkdir(path.join(parent, name));
        await writeFile(path.join(parent, name, 'owner.pid'), String(pid));
      }
      await mkdir(path.join(parent, 'something-else'));
      const removed = await removeAbandonedRoots(parent);
      expect(removed.map((root) => path.basename(root))).toEqual(['aioscope-opened-gone']);
      expect((await readdir(parent)).sort()).toEqual(['aioscope-opened-mine', 'something-else']);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('displayFileName', () => {
  it.each([
    ['/home/me/a.aioscope.gz', 'a.aioscope.gz'],
    ['C:\\Users\\me\\b.aioscope.gz', 'b.aioscope.gz'],
    ['bad\u0007name\n.gz', 'badname.gz'],
    ['', 'recording'],
    [undefined, 'recording'],
  ])('shows %j as %j', (name, shown) => {
    expect(displayFileName(name)).toBe(shown);
  });
});
