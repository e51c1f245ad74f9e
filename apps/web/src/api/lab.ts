import {
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import {
  labExperimentListSchema,
  labExperimentRecordSchema,
  labInfoSchema,
  labStartedSchema,
  type LabExperiment,
  type LabExperimentInput,
  type LabExperimentListItem,
  type LabInfo,
} from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked, postChecked } from './request.ts';

/** A running experiment is followed this often; a finished one is not re-read. */
const RUNNING_REFRESH_MS = 1_000;
const LIST_REFRESH_MS = 10_000;
/** While an experiment holds the lab (and may have restarted the embedded server), the banner follows it. */
const ACTIVE_REFRESH_MS = 1_000;

export function useLabInfo(): UseQueryResult<LabInfo> {
  return useQuery({
    queryKey: queryKeys.labInfo(),
    queryFn: () => fetchChecked('/api/lab', labInfoSchema),
    refetchInterval: (query) => ((query.state.data?.active ?? null) !== null ? ACTIVE_REFRESH_MS : LIST_REFRESH_MS),
  });
}

export function useLabExperiments(): UseQueryResult<LabExperimentListItem[]> {
  return useQuery({
    queryKey: queryKeys.labExperiments(),
    queryFn: () => fetchChecked('/api/lab/experiments', labExperimentListSchema),
    refetchInterval: (query) =>
      query.state.data?.some((item) => item.status === 'running') === true ? RUNNING_REFRESH_MS : LIST_REFRESH_MS,
  });
}

export function useLabExperiment(id: string | null): UseQueryResult<LabExperiment> {
  return useQuery({
    queryKey: queryKeys.labExperiment(id ?? ''),
    queryFn: () => fetchChecked(`/api/lab/experiments/${encodeURIComponent(id ?? '')}`, labExperimentRecordSchema),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_REFRESH_MS : false),
  });
}

export function useStartExperiment(): UseMutationResult<{ id: string }, Error, LabExperimentInput> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: LabExperimentInput) => postChecked('/api/lab/experiments', labStartedSchema, input),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.labExperiments() });
      void client.invalidateQueries({ queryKey: queryKeys.labInfo() });
    },
  });
}

/** Cancels a running experiment; resolves with it once the server has saved it as cancelled. */
export function useCancelExperiment(): UseMutationResult<LabExperiment, Error, string> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      postChecked(`/api/lab/experiments/${encodeURIComponent(id)}/cancel`, labExperimentRecordSchema),
    onSuccess: (experiment) => {
      client.setQueryData(queryKeys.labExperiment(experiment.id), experiment);
      void client.invalidateQueries({ queryKey: queryKeys.labExperiments() });
      void client.invalidateQueries({ queryKey: queryKeys.labInfo() });
    },
  });
}
