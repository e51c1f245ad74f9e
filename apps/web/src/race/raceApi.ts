import {
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import { raceSchema, raceStartedSchema, type Race, type RaceStart } from '@aioscope/spec';
import { queryKeys } from '../api/queryKeys.ts';
import { fetchChecked, postChecked } from '../api/request.ts';

/** A race is followed this often while its experiment runs; a finished one is not re-read. */
const RUNNING_REFRESH_MS = 1_000;

/**
 * Race keys sit under the lab's experiment key (a race is that experiment plus its captures), so
 * whatever refreshes an experiment refreshes its race; kept here while queryKeys.ts is being edited
 * elsewhere, to move there with the next change to it.
 */
export const raceKey = (id: string): readonly unknown[] => [...queryKeys.labExperiment(id), 'race'];

export function useRace(id: string | null): UseQueryResult<Race> {
  return useQuery({
    queryKey: raceKey(id ?? ''),
    queryFn: () => fetchChecked(`/api/race/${encodeURIComponent(id ?? '')}`, raceSchema),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.experiment.status === 'running' ? RUNNING_REFRESH_MS : false),
  });
}

/** POST /api/race; a refusal becomes an Error carrying the server's sentence (the lab's policy). */
function startRace(body: RaceStart): Promise<{ id: string }> {
  return postChecked('/api/race', raceStartedSchema, body);
}

export function useStartRace(): UseMutationResult<{ id: string }, Error, RaceStart> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: startRace,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.labExperiments() });
      void client.invalidateQueries({ queryKey: queryKeys.labInfo() });
    },
  });
}
