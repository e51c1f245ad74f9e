import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { MAX_OPEN_RECORDINGS, type OpenedRecording, type Role, type TargetSummary } from '@aioscope/spec';
import type { HistoryCatalog, HistoryReader } from './historyReader.ts';
import { RecordingDatabases, type AttachedRecording } from './recordingDatabases.ts';
import {
  DEFAULT_RECORDING_LIMITS,
  RecordingFileError,
  formatMegabytes,
  type RecordingLimits,
} from './recordingFile.ts';
import { RECORDING_TARGET, type IngestedRecording } from './recordingIngest.ts';
import { sharedIngestProcess, type IngestCost, type RecordingIngestProcess } from './recordingIngestProcess.ts';
import { TemporaryFolders } from './temporaryFolders.ts';
import { checkRecordedBody } from './recordedBodyCheck.ts';
import { SamplesFile } from './recordingSamples.ts';
import { StoreHistoryReader } from './storeReader.ts';

/** Longest file name kept for display; the rest of a name says nothing more. */
const MAX_FILE_NAME_LENGTH = 120;
/** Disk kept for the databases of all opened recordings together (~20 h of 100 Hz recordings). */
export const MAX_OPENED_RECORDING_BYTES = 2 * 1024 ** 3;
/** What a client is told to wait when another file is opening (the 503's Retry-After). */
export const OPEN_RETRY_AFTER_S = 2;

/** The name a person gave the file, without folders or control characters, never empty. */
export function displayFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean.slice(0, MAX_FILE_NAME_LENGTH) || 'recording';
}

/** Another file is opening: the caller answers 503 with Retry-After. */
export class RecordingsBusyError extends Error {
  override readonly name = 'RecordingsBusyError';
  constructor() {
    super('another recording file is being opened: try again in a moment');
  }
}

/** The right to open one file; a second open waits for none and is refused at once. */
export interface OpenSlot {
  /** A folder of its own for the upload and the database. */
  folder: Promise<string>;
  release(): void;
}

interface Slot extends OpenSlot {
  adopted: boolean;
  released: boolean;
  /** release(), waiting for the folder's removal. */
  settle(): Promise<void>;
}

const isSlot = (slot: OpenSlot): slot is Slot => 'adopted' in slot;

interface OpenEntry {
  history: HistoryReader;
  attached: AttachedRecording;
  samples: SamplesFile;
  folder: string;
  bytes: number;
  summary: TargetSummary;
  /** The proxy's user who opened it, null when the caller was not named (token, loopback). */
  openedBy: string | null;
}

export interface OpenedRecordingsOptions {
  maxOpen?: number;
  maxBytes?: number;
  limits?: RecordingLimits;
  /** Where the temporary folders go (the OS's temporary folder by default). */
  temporaryRoot?: string;
  /** Told what each file's ingest cost: its process's peak RSS, which this process's RSS does not show. */
  onIngested?: (cost: IngestCost) => void;
  /** The process files are checked in: this aioscope's one (sharedIngestProcess) unless given. */
  ingestProcess?: RecordingIngestProcess;
}

export type { IngestCost };

/**
 * Recording files opened in this process (`open FILE`, dropped files), each a target of kind
 * 'recording' served from a DuckDB database on disk. A file is checked and written into its
 * database in a child process at the lowest CPU priority (recordingIngestProcess.ts: one process
 * kept for every file), one file at a time, so opening never holds the sampler's thread nor the page's requests, and no number of uploads can grow this process's heap: each opened file
 * costs a few kB here, DuckDB's buffers for all of them share one memory limit, and their disk
 * is bounded (MAX_OPENED_RECORDING_BYTES, a clear refusal past it). Opening one more than
 * MAX_OPEN_RECORDINGS closes the oldest.
 */
export class OpenedRecordings implements HistoryCatalog {
  /** In opening order: the first is the oldest. */
  private readonly entries = new Map<string, OpenEntry>();
  private readonly databases = new RecordingDatabases();
  private readonly folders: TemporaryFolders;
  private opened = 0;
  private slotTaken = false;
  private closed = false;
  private readonly ingestProcess: RecordingIngestProcess;

  constructor(private readonly options: OpenedRecordingsOptions = {}) {
    this.folders = new TemporaryFolders(options.temporaryRoot);
    this.ingestProcess = options.ingestProcess ?? sharedIngestProcess();
  }

  /**
   * The one slot for opening a file, or null while another file is opening. Releasing it removes
   * its folder unless a file was opened from it.
   */
  reserve(): OpenSlot | null {
    if (this.slotTaken || this.closed) return null;
    this.slotTaken = true;
    // Started with the first upload rather than with aioscope: one that never opens a file pays
    // nothing, and its start-up overlaps the upload's body.
    this.ingestProcess.start();
    const folder = this.folders.create();
    folder.catch(() => undefined); // awaited by whoever uses it; a release alone must not leave it unhandled
    const slot: Slot = {
      folder,
      adopted: false,
      released: false,
      settle: async () => {
        if (slot.released) return;
        slot.released = true;
        this.slotTaken = false;
        if (!slot.adopted) await folder.then((made) => this.folders.remove(made)).catch(() => undefined);
      },
      release: () => void slot.settle(),
    };
    return slot;
  }

  get opening(): boolean {
    return this.slotTaken;
  }

  /**
   * Checks the file whole and opens it as a target. A bad file (RecordingFileError) or one past the
   * budget changes nothing: its folder is removed. `file` may sit in the slot's folder (an upload).
   * `openedBy` names who opened it, for the right to close it (mayClose).
   */
  async open(
    slot: OpenSlot,
    file: string,
    fileName: string | undefined,
    openedBy: string | null = null,
  ): Promise<OpenedRecording> {
    if (!isSlot(slot) || slot.released) throw new RecordingsBusyError();
    const folder = await slot.folder;
    try {
      const limits = this.options.limits ?? DEFAULT_RECORDING_LIMITS;
      const { ingested, cost } = await this.ingestProcess.ingest({ file, folder, limits });
      this.options.onIngested?.(cost);
      if (path.dirname(file) === folder) await rm(file, { force: true });
      // On disk: the database (roll-ups, events, the samples' index) and the samples' bodies.
      const bytes = (await stat(ingested.database)).size + (await stat(ingested.samplesFile)).size;
      const maxBytes = this.options.maxBytes ?? MAX_OPENED_RECORDING_BYTES;
      const held = this.heldBytes();
      if (held + bytes > maxBytes) {
        throw new RecordingFileError(
          `opened recordings would take ${formatMegabytes(held + bytes)}, over the ${formatMegabytes(maxBytes)} kept ` +
            `for them (this file: ${formatMegabytes(bytes)}): close an opened recording first`,
        );
      }
      if (this.closed) throw new RecordingFileError('aioscope is shutting down');
      const opened = await this.add(ingested, folder, bytes, fileName, openedBy);
      slot.adopted = true;
      return opened;
    } finally {
      await slot.settle();
    }
  }

  get(targetId: string): HistoryReader | undefined {
    return this.entries.get(targetId)?.history;
  }

  summary(targetId: string): TargetSummary | undefined {
    return this.entries.get(targetId)?.summary;
  }

  summaries(): TargetSummary[] {
    return [...this.entries.values()].map((entry) => entry.summary);
  }

  /**
   * Why `caller` may not close this recording, or null when they may. A recording a named user of
   * the team's proxy opened is theirs and the operators' to close: another viewer working on the
   * same replica cannot take it away. An unnamed caller (token, loopback) is the one user there is.
   */
  closeRefusal(targetId: string, caller: { user: string | null; role: Role }): string | null {
    const openedBy = this.entries.get(targetId)?.openedBy ?? null;
    if (openedBy === null || caller.role === 'operator' || caller.user === openedBy) return null;
    return `"${targetId}" was opened by ${openedBy}: only they or an operator may close it`;
  }

  /** Closes one opened recording and removes its database; false if it is not open. */
  close(targetId: string): boolean {
    const entry = this.entries.get(targetId);
    if (entry === undefined) return false;
    this.entries.delete(targetId);
    void this.discard(entry);
    return true;
  }

  /** Closes every opened recording and removes what they left on disk. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map((entry) => this.discard(entry)));
    this.databases.close();
    await this.folders.removeAll();
  }

  private heldBytes(): number {
    let sum = 0;
    for (const entry of this.entries.values()) sum += entry.bytes;
    return sum;
  }

  private async add(
    ingested: IngestedRecording,
    folder: string,
    bytes: number,
    fileName: string | undefined,
    openedBy: string | null,
  ): Promise<OpenedRecording> {
    const id = `recording-${++this.opened}`;
    const { header } = ingested;
    const span = header.range.to - header.range.from;
    const attached = await this.databases.attach(ingested.database, {
      limits: { rawMs: span, rollupMs: span, maxBytes: ingested.compressedBytes },
    });
    const { target, server, capabilities, sampleRateHz, statRateHz } = header;
    const description = { target, server, capabilities, sampleRateHz, statRateHz };
    // Its samples may have been stored unparsed (the file rolled itself up): checked as they are read.
    const samples = new SamplesFile(ingested.samplesFile);
    const history = new StoreHistoryReader(id, attached, () => description, {
      storedAs: RECORDING_TARGET,
      parseBody: checkRecordedBody,
      samples,
    });
    const file = displayFileName(fileName);
    const summary: TargetSummary = {
      id,
      name: `${header.target.name} · ${file}`,
      kind: 'recording',
      // No connection state fits a file: 'error' with the reason keeps any live view from waiting for frames.
      status: {
        state: 'error',
        message: 'a recording file: no live stream, its history only',
        since: Date.now(),
        lastFrameAt: ingested.lastFrameT,
        skippedTicks: ingested.skippedTicks,
      },
      server: header.server,
      capabilities: header.capabilities,
      sampleRateHz: header.sampleRateHz,
      statRateHz: header.statRateHz,
      demoWorkload: false,
      recording: { from: header.range.from, to: header.range.to, fileName: file },
    };
    this.entries.set(id, { history, attached, samples, folder, bytes, summary, openedBy });
    const maxOpen = this.options.maxOpen ?? MAX_OPEN_RECORDINGS;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= maxOpen) break;
      this.entries.delete(oldest);
      void this.discard(entry);
    }
    return { targetId: id, name: summary.name, from: header.range.from, to: header.range.to };
  }

  private async discard(entry: OpenEntry): Promise<void> {
    await entry.attached.detach().catch(() => undefined);
    // After the detach: it waits for the reads in flight, which may still read the samples file.
    await entry.samples.close().catch(() => undefined);
    await this.folders.remove(entry.folder);
  }
}
