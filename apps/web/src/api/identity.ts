import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { identitySchema, type Identity } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/**
 * Who this page is talking for (GET /api/me): the auth proxy's user and their role. Read once per
 * page: a role changes with a restart of aioscope, which a reload shows. The server checks the role
 * on every call; the page only says beforehand what it would refuse.
 */
export function useIdentity(): UseQueryResult<Identity> {
  return useQuery({
    queryKey: queryKeys.identity(),
    queryFn: () => fetchChecked('/api/me', identitySchema),
    staleTime: Infinity,
  });
}

/** Why this user may not start or cancel lab runs and races, or null (an operator, or not known yet: the server decides). */
export function useOperatorOnly(): string | null {
  return useIdentity().data?.operatorOnly ?? null;
}
