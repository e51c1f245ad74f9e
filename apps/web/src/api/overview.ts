import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { overviewSchema, type Overview } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/**
 * Statuses and sparklines of every server. A server gone stale or disconnected should show within
 * seconds; the sparklines' newest 10 s step moves on every second.
 */
const OVERVIEW_REFRESH_MS = 2_000;

export function useOverview(enabled: boolean): UseQueryResult<Overview> {
  return useQuery({
    queryKey: queryKeys.overview(),
    queryFn: () => fetchChecked('/api/overview', overviewSchema),
    refetchInterval: OVERVIEW_REFRESH_MS,
    enabled,
  });
}
