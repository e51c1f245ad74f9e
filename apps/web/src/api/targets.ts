import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { targetListSchema, type TargetSummary } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/** Settings and capabilities change rarely; the live stream carries everything fast. */
const TARGETS_REFRESH_MS = 5_000;

export function useTargets(): UseQueryResult<TargetSummary[]> {
  return useQuery({
    queryKey: queryKeys.targets(),
    queryFn: () => fetchChecked('/api/targets', targetListSchema),
    refetchInterval: TARGETS_REFRESH_MS,
  });
}
