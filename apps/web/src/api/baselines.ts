import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import {
  baselineListSchema,
  baselineSchema,
  openedRecordingSchema,
  type Baseline,
  type BaselineList,
  type NewBaseline,
  type OpenedRecording,
} from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked, postChecked, refusal } from './request.ts';

/** Every kept baseline (GET /api/baselines), read when the list is shown. */
export function useBaselines(enabled: boolean): UseQueryResult<BaselineList> {
  return useQuery({
    queryKey: queryKeys.baselines(),
    queryFn: () => fetchChecked('/api/baselines', baselineListSchema),
    enabled,
  });
}

/** Marks [from, to) of a target as a baseline: its recording file is kept in the history store. */
export function markBaseline(targetId: string, baseline: NewBaseline): Promise<Baseline> {
  return postChecked(`/api/targets/${encodeURIComponent(targetId)}/baselines`, baselineSchema, baseline);
}

/** Opens a baseline as a recording target (the answer names it, as an opened file's does). */
export function openBaseline(id: string): Promise<OpenedRecording> {
  return postChecked(`/api/baselines/${encodeURIComponent(id)}/open`, openedRecordingSchema);
}

export async function deleteBaseline(id: string): Promise<void> {
  const url = `/api/baselines/${encodeURIComponent(id)}`;
  const response = await fetch(url, { method: 'DELETE' });
  if (!response.ok) throw refusal(url, response.status, await response.json().catch(() => null));
}

export const baselineExportUrl = (id: string): string => `/api/baselines/${encodeURIComponent(id)}/export`;
