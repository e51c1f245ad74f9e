import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type DragEvent } from 'react';
import {
  openedRecordingSchema,
  MAX_RAW_RANGE_MS,
  type HistoryExtent,
  type OpenedRecording,
  type TargetSummary,
} from '@aioscope/spec';
import { queryKeys } from '../api/queryKeys.ts';
import { checkedAnswer } from '../api/request.ts';
import type { TimeTravel } from './useTimeTravel.ts';

export interface OpenRecording {
  open: (file: File) => void;
  message: string | null;
  tone: 'good' | 'bad' | 'muted';
  /** Props for the element files are dropped on. */
  dropZone: { onDragOver: (event: DragEvent) => void; onDrop: (event: DragEvent) => void };
}

/** How long a dropped file waits, in all, for another file's open to finish before giving up. */
const MAX_WAIT_MS = 120_000;
const DEFAULT_RETRY_S = 2;

/**
 * POSTs the file; while the server is opening another one (503, one file at a time) waits as its
 * Retry-After says and tries again, up to MAX_WAIT_MS.
 */
async function postWhenFree(file: File, onWaiting: (seconds: number) => void): Promise<Response> {
  const deadline = Date.now() + MAX_WAIT_MS;
  for (;;) {
    const response = await fetch(`/api/recordings?name=${encodeURIComponent(file.name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: file,
    });
    if (response.status !== 503 || Date.now() >= deadline) return response;
    const asked = Number(response.headers.get('retry-after'));
    const waitS = Number.isFinite(asked) && asked > 0 && asked <= 60 ? asked : DEFAULT_RETRY_S;
    onWaiting(waitS);
    await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
  }
}

/**
 * Opens a recording file in this aioscope (POST /api/recordings): dropped on the page or chosen
 * with the "Open recording…" button. A bad file gets the server's reason and changes nothing.
 */
export function useOpenRecording(onOpened: (opened: OpenedRecording) => void): OpenRecording {
  const queryClient = useQueryClient();
  const [state, setState] = useState<{ message: string | null; tone: OpenRecording['tone'] }>({
    message: null,
    tone: 'muted',
  });
  const open = (file: File): void => {
    setState({ message: `Opening ${file.name}…`, tone: 'muted' });
    void (async () => {
      try {
        const response = await postWhenFree(file, (waitS) =>
          setState({
            message: `Waiting to open ${file.name}: another recording file is being opened (next try in ${waitS} s)…`,
            tone: 'muted',
          }),
        );
        const opened = await checkedAnswer('POST', '/api/recordings', openedRecordingSchema, response);
        // Straight to the recording (the answer names it and its range); only the target list is
        // re-read, not every query of the server on screen.
        setState({ message: `Opened ${file.name}: ${opened.name}.`, tone: 'good' });
        onOpened(opened);
        void queryClient.invalidateQueries({ queryKey: queryKeys.targets(), exact: true });
      } catch (error) {
        setState({ message: `Cannot open ${file.name}: ${(error as Error).message}`, tone: 'bad' });
      }
    })();
  };
  return {
    open,
    ...state,
    dropZone: {
      onDragOver: (event) => {
        if (event.dataTransfer.types.includes('Files')) event.preventDefault();
      },
      onDrop: (event) => {
        const file = event.dataTransfer.files[0];
        if (file === undefined) return;
        event.preventDefault();
        open(file);
      },
    },
  };
}

/** A recording file has no live edge: on its "live" page, show what it holds instead. */
export function useOpenRecordingsOnLive(
  hasLive: boolean,
  target: TargetSummary | undefined,
  extent: HistoryExtent | undefined,
  time: TimeTravel,
): void {
  const raw = extent?.raw ?? null;
  // A file's own range, as its upload opens it (so "5 min" shows pressed for a 5-minute file); else what is kept.
  const file = target?.recording ?? null;
  const from = file?.from ?? raw?.from ?? null;
  const end = file?.to ?? (raw === null ? null : raw.to + 1);
  const needsRange = target !== undefined && !hasLive && time.view.mode === 'live' && from !== null && end !== null;
  useEffect(() => {
    if (!needsRange || from === null || end === null) return;
    const to = Math.min(end, from + MAX_RAW_RANGE_MS);
    // At the range's end, like a paused live view: the "now" figures show samples, not "–".
    time.setView({ mode: 'range', from, to, at: to, speed: null });
  }, [needsRange, from, end, time]);
}
