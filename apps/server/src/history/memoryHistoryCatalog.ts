import { MAX_OPEN_RECORDINGS, type OpenedRecording, type TargetSummary } from '@aioscope/spec';
import type { HistoryCatalog } from './historyReader.ts';
import { MemoryHistory } from './memoryHistory.ts';
import type { LoadedRecording } from './recordingFileReader.ts';

/** Longest file name kept for display; the rest of a name says nothing more. */
const MAX_FILE_NAME_LENGTH = 120;

interface OpenEntry {
  history: MemoryHistory;
  summary: TargetSummary;
}

/** The name a person gave the file, without folders or control characters, never empty. */
export function displayFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean.slice(0, MAX_FILE_NAME_LENGTH) || 'recording';
}

/**
 * Recording files opened in this process (`open FILE`, dropped files), each a target of kind
 * 'recording' with a MemoryHistory. Bounded: each holds its whole file in memory, so opening one
 * more than MAX_OPEN_RECORDINGS closes the oldest.
 */
export class OpenedRecordings implements HistoryCatalog {
  /** In opening order: the first is the oldest. */
  private readonly entries = new Map<string, OpenEntry>();
  private opened = 0;

  constructor(private readonly maxOpen: number = MAX_OPEN_RECORDINGS) {}

  add(recording: LoadedRecording, fileName: string | undefined, openedAt: number = Date.now()): OpenedRecording {
    const id = `recording-${++this.opened}`;
    const { header } = recording;
    const file = displayFileName(fileName);
    const summary: TargetSummary = {
      id,
      name: `${header.target.name} · ${file}`,
      kind: 'recording',
      // No connection state fits a file: 'error' with the reason keeps any live view from waiting for frames.
      status: {
        state: 'error',
        message: 'a recording file: no live stream, its history only',
        since: openedAt,
        lastFrameAt: recording.frames[recording.frames.length - 1]?.t ?? null,
        skippedTicks: recording.frames.reduce((sum, frame) => sum + frame.skippedTicks, 0),
      },
      server: header.server,
      capabilities: header.capabilities,
      sampleRateHz: header.sampleRateHz,
      statRateHz: header.statRateHz,
      demoWorkload: false,
      recording: { from: header.range.from, to: header.range.to, fileName: file },
    };
    this.entries.set(id, { history: new MemoryHistory(id, recording), summary });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxOpen) break;
      this.entries.delete(oldest);
    }
    return { targetId: id, name: summary.name, from: header.range.from, to: header.range.to };
  }

  get(targetId: string): MemoryHistory | undefined {
    return this.entries.get(targetId)?.history;
  }

  summary(targetId: string): TargetSummary | undefined {
    return this.entries.get(targetId)?.summary;
  }

  summaries(): TargetSummary[] {
    return [...this.entries.values()].map((entry) => entry.summary);
  }

  close(targetId: string): boolean {
    return this.entries.delete(targetId);
  }
}
