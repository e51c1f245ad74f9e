import { useEffect, useState } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { TargetSummary } from '@aioscope/spec';

/**
 * The target a /t/:id URL names, and whether no such target exists. Unknown only once a list
 * fetched after the id was asked for lacks it: a recording file just opened is in the list being
 * fetched, and its page must not flash "no such server" first. Once unknown, it stays so across
 * the list's periodic refreshes until the id appears.
 */
export function useTargetLookup(
  targets: UseQueryResult<TargetSummary[]>,
  id: string | null,
): { target: TargetSummary | undefined; unknown: boolean } {
  const target = id === null ? undefined : targets.data?.find((candidate) => candidate.id === id);
  const missing = id !== null && targets.data !== undefined && target === undefined;
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const settled = missing && !targets.isFetching;
  useEffect(() => {
    if (settled) setConfirmed(id);
  }, [settled, id]);
  return { target, unknown: missing && (settled || confirmed === id) };
}
