import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import {
  historyEventsSchema,
  historyExtentSchema,
  historyFramesSchema,
  historyReadersSchema,
  historyRollupsSchema,
  type HistoryEvents,
  type HistoryExtent,
  type HistoryFrames,
  type HistoryReaders,
  type HistoryRollups,
} from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/** The kept range grows while recording: re-read it this often (it is one small row). */
const EXTENT_REFRESH_MS = 5_000;
/** A range that ended this long ago will not change: cache it for the session. */
const SETTLED_AFTER_MS = 5_000;

function historyUrl(targetId: string, what: string, params: Record<string, number>): string {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(Math.round(value))]));
  return `/api/targets/${encodeURIComponent(targetId)}/history${what}?${query.toString()}`;
}

function staleTimeFor(to: number): number {
  return Date.now() - to > SETTLED_AFTER_MS ? Infinity : 0;
}

export function useHistoryExtent(targetId: string | null): UseQueryResult<HistoryExtent> {
  return useQuery({
    queryKey: queryKeys.historyExtent(targetId ?? ''),
    queryFn: () => fetchChecked(`/api/targets/${encodeURIComponent(targetId ?? '')}/history`, historyExtentSchema),
    enabled: targetId !== null,
    refetchInterval: EXTENT_REFRESH_MS,
    retry: false,
  });
}

/** Every raw sample of a range (at most 15 minutes: the server refuses longer ones). */
export function useHistoryFrames(
  targetId: string | null,
  range: { from: number; to: number } | null,
): UseQueryResult<HistoryFrames> {
  return useQuery({
    queryKey: queryKeys.historyFrames(targetId ?? '', range?.from ?? 0, range?.to ?? 0),
    queryFn: () =>
      fetchChecked(
        historyUrl(targetId ?? '', '/frames', { from: range?.from ?? 0, to: range?.to ?? 0 }),
        historyFramesSchema,
      ),
    enabled: targetId !== null && range !== null,
    staleTime: staleTimeFor(range?.to ?? 0),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

/** Roll-ups of a range; the server widens the step so the answer stays small. */
export function useHistoryRollups(
  targetId: string | null,
  range: { from: number; to: number } | null,
  stepMs?: number,
): UseQueryResult<HistoryRollups> {
  return useQuery({
    queryKey: queryKeys.historyRollups(targetId ?? '', range?.from ?? 0, range?.to ?? 0, stepMs ?? 0),
    queryFn: () =>
      fetchChecked(
        historyUrl(targetId ?? '', '/rollups', {
          from: range?.from ?? 0,
          to: range?.to ?? 0,
          ...(stepMs === undefined ? {} : { stepMs }),
        }),
        historyRollupsSchema,
      ),
    enabled: targetId !== null && range !== null,
    staleTime: staleTimeFor(range?.to ?? 0),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

export function useHistoryEvents(
  targetId: string | null,
  range: { from: number; to: number } | null,
): UseQueryResult<HistoryEvents> {
  return useQuery({
    queryKey: queryKeys.historyEvents(targetId ?? '', range?.from ?? 0, range?.to ?? 0),
    queryFn: () =>
      fetchChecked(
        historyUrl(targetId ?? '', '/events', { from: range?.from ?? 0, to: range?.to ?? 0 }),
        historyEventsSchema,
      ),
    enabled: targetId !== null && range !== null,
    staleTime: staleTimeFor(range?.to ?? 0),
    placeholderData: (previous) => previous,
    retry: false,
  });
}

/** The statements that read in a range (at most 15 minutes, like the raw frames it comes from). */
export function useHistoryReaders(
  targetId: string | null,
  range: { from: number; to: number } | null,
): UseQueryResult<HistoryReaders> {
  return useQuery({
    queryKey: queryKeys.historyReaders(targetId ?? '', range?.from ?? 0, range?.to ?? 0),
    queryFn: () =>
      fetchChecked(
        historyUrl(targetId ?? '', '/readers', { from: range?.from ?? 0, to: range?.to ?? 0 }),
        historyReadersSchema,
      ),
    enabled: targetId !== null && range !== null,
    staleTime: staleTimeFor(range?.to ?? 0),
    retry: false,
  });
}

/** Links that download a range: the recording file and the CSV. */
export function exportUrls(targetId: string, from: number, to: number): { recording: string; csv: string } {
  return {
    recording: historyUrl(targetId, '/export', { from, to }),
    csv: historyUrl(targetId, '/export.csv', { from, to }),
  };
}
