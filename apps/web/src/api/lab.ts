import {
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import {
  apiErrorSchema,
  labExperimentListSchema,
  labExperimentRecordSchema,
  labInfoSchema,
  labStartedSchema,
  type LabExperiment,
  type LabExperimentInput,
  type LabExperimentListItem,
  type LabInfo,
  type Schema,
} from '@aioscope/spec';
import { payloadChecker } from './checkPayload.ts';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './targets.ts';

/** A running experiment is followed this often; a finished one is not re-read. */
const RUNNING_REFRESH_MS = 1_000;
const LIST_REFRESH_MS = 10_000;
/** While an experiment holds the lab (and may have restarted the embedded server), the banner follows it. */
const ACTIVE_REFRESH_MS = 1_000;

/** POST `url` and parse the answer with its spec schema; a 4xx/5xx becomes an Error with the server's sentence. */
async function postChecked<T>(url: string, schema: Schema<T>, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = apiErrorSchema.safeParse(answer);
    throw new Error(error.success ? error.data.error : `${url}: HTTP ${response.status}`);
  }
  const checked = payloadChecker.check(`POST ${url}`, schema, answer);
  if (checked === undefined) throw new Error(`${url}: the server's answer was not understood (see the console)`);
  return checked;
}

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
