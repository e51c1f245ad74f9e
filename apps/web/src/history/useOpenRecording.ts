import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type DragEvent } from 'react';
import {
  apiErrorSchema,
  openedRecordingSchema,
  MAX_RAW_RANGE_MS,
  type HistoryExtent,
  type OpenedRecording,
  type TargetSummary,
} from '@aioscope/spec';
import { payloadChecker } from '../api/checkPayload.ts';
import { queryKeys } from '../api/queryKeys.ts';
import type { TimeTravel } from './useTimeTravel.ts';

export interface OpenRecording {
  open: (file: File) => void;
  message: string | null;
  tone: 'good' | 'bad' | 'muted';
  /** Props for the element files are dropped on. */
  dropZone: { onDragOver: (event: DragEvent) => void; onDrop: (event: DragEvent) => void };
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
        const response = await fetch('/api/recordings', {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: file,
        });
        const body: unknown = await response.json().catch(() => null);
        if (!response.ok) {
          const parsed = apiErrorSchema.safeParse(body);
          throw new Error(parsed.success ? parsed.data.error : `HTTP ${response.status}`);
        }
        const opened = payloadChecker.check('POST /api/recordings', openedRecordingSchema, body);
        if (opened === undefined) throw new Error("the server's answer was not understood");
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
  const needsRange = target !== undefined && !hasLive && time.view.mode === 'live' && raw !== null;
  useEffect(() => {
    if (!needsRange || raw === null) return;
    const to = Math.min(raw.to + 1, raw.from + MAX_RAW_RANGE_MS);
    time.setView({ mode: 'range', from: raw.from, to, at: raw.from, speed: null });
  }, [needsRange, raw, time]);
}
