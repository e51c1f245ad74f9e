import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { compareResultSchema, type CompareResult } from '@aioscope/spec';
import { compareQuery, type CompareSides } from '../compare/compareLink.ts';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/** Two recorded ranges side by side. A range that ended is settled: its answer is kept for the session. */
export function useCompare(sides: CompareSides | null): UseQueryResult<CompareResult> {
  const query = sides === null ? '' : compareQuery(sides);
  return useQuery({
    queryKey: queryKeys.compare(query),
    queryFn: () => fetchChecked(`/api/compare?${query}`, compareResultSchema),
    enabled: sides !== null,
    staleTime: Infinity,
    retry: false,
  });
}
