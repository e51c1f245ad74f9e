import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { overviewSchema, type Overview } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/** Statuses and sparklines of every server; the sparklines are 1 s steps, so 2 s keeps them current. */
const OVERVIEW_REFRESH_MS = 2_000;

export function useOverview(enabled: boolean): UseQueryResult<Overview> {
  return useQuery({
    queryKey: queryKeys.overview(),
    queryFn: () => fetchChecked('/api/overview', overviewSchema),
    refetchInterval: OVERVIEW_REFRESH_MS,
    enabled,
  });
}
