import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { apiErrorSchema, targetListSchema, type Schema, type TargetSummary } from '@aioscope/spec';
import { payloadChecker } from './checkPayload.ts';
import { queryKeys } from './queryKeys.ts';

/** Settings and capabilities change rarely; the live stream carries everything fast. */
const TARGETS_REFRESH_MS = 5_000;

/** The JSON body of a successful response; a 4xx/5xx becomes an Error carrying the server's message. */
async function fetchBody(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    const parsed = apiErrorSchema.safeParse(body);
    throw new Error(parsed.success ? parsed.data.error : `${url}: HTTP ${response.status}`);
  }
  return response.json();
}

/** GET `url`, parsed with its spec schema: a body that does not match is an error, never a cast. */
export async function fetchChecked<T>(url: string, schema: Schema<T>): Promise<T> {
  const body = await fetchBody(url);
  const checked = payloadChecker.check(`GET ${url}`, schema, body);
  if (checked === undefined) throw new Error(`${url}: the server's answer was not understood (see the console)`);
  return checked;
}

export function useTargets(): UseQueryResult<TargetSummary[]> {
  return useQuery({
    queryKey: queryKeys.targets(),
    queryFn: () => fetchChecked('/api/targets', targetListSchema),
    refetchInterval: TARGETS_REFRESH_MS,
  });
}
