import {
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import { apiErrorSchema, raceSchema, raceStartedSchema, type Race, type RaceStart } from '@aioscope/spec';
import { payloadChecker } from '../api/checkPayload.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { fetchChecked } from '../api/targets.ts';

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
async function startRace(body: RaceStart): Promise<{ id: string }> {
  const response = await fetch('/api/race', {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = apiErrorSchema.safeParse(answer);
    throw new Error(error.success ? error.data.error : `/api/race: HTTP ${response.status}`);
  }
  const checked = payloadChecker.check('POST /api/race', raceStartedSchema, answer);
  if (checked === undefined) throw new Error("/api/race: the server's answer was not understood (see the console)");
  return checked;
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
