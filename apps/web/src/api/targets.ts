import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import type { TargetSummary } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';

/** Settings and capabilities change rarely; the live stream carries everything fast. */
const TARGETS_REFRESH_MS = 5_000;

export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? `${url}: HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

export function useTargets(): UseQueryResult<TargetSummary[]> {
  return useQuery({
    queryKey: queryKeys.targets(),
    queryFn: () => fetchJson<TargetSummary[]>('/api/targets'),
    refetchInterval: TARGETS_REFRESH_MS,
  });
}
