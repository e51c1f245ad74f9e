import {
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import type { LabExperiment, LabExperimentInput, LabExperimentListItem } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchJson } from './targets.ts';

/** A running experiment is followed this often; a finished one is not re-read. */
const RUNNING_REFRESH_MS = 1_000;
const LIST_REFRESH_MS = 10_000;

export interface LabInfo {
  embedded: boolean;
  unavailable?: string;
}

export function useLabInfo(): UseQueryResult<LabInfo> {
  return useQuery({ queryKey: queryKeys.labInfo(), queryFn: () => fetchJson<LabInfo>('/api/lab') });
}

export function useLabExperiments(): UseQueryResult<LabExperimentListItem[]> {
  return useQuery({
    queryKey: queryKeys.labExperiments(),
    queryFn: () => fetchJson<LabExperimentListItem[]>('/api/lab/experiments'),
    refetchInterval: (query) =>
      query.state.data?.some((item) => item.status === 'running') === true ? RUNNING_REFRESH_MS : LIST_REFRESH_MS,
  });
}

export function useLabExperiment(id: string | null): UseQueryResult<LabExperiment> {
  return useQuery({
    queryKey: queryKeys.labExperiment(id ?? ''),
    queryFn: () => fetchJson<LabExperiment>(`/api/lab/experiments/${encodeURIComponent(id ?? '')}`),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_REFRESH_MS : false),
  });
}

export function useStartExperiment(): UseMutationResult<{ id: string }, Error, LabExperimentInput> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: LabExperimentInput) => {
      const response = await fetch('/api/lab/experiments', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(input),
      });
      const body = (await response.json().catch(() => ({}))) as { id?: string; error?: string };
      if (!response.ok || body.id === undefined) throw new Error(body.error ?? `HTTP ${response.status}`);
      return { id: body.id };
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.labExperiments() }),
  });
}
