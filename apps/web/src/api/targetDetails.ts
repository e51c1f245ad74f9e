import { useEffect } from 'react';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { auditReportSchema, processDetailSchema, type AuditReport, type ProcessDetail } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './request.ts';

/** Settings change rarely; the audit is re-read on this period and on demand. */
const AUDIT_REFRESH_MS = 30_000;
/** Per-backend counters only move when the backend's statements end. */
const PROCESS_REFRESH_MS = 3_000;

/** Asked for only while `connected`: before aioscope's session is up the server can only answer 503. */
export function useAudit(targetId: string | undefined, connected: boolean): UseQueryResult<AuditReport> {
  const query = useQuery({
    queryKey: queryKeys.audit(targetId ?? ''),
    queryFn: () => fetchChecked(`/api/targets/${encodeURIComponent(targetId ?? '')}/audit`, auditReportSchema),
    enabled: targetId !== undefined && connected,
    refetchInterval: AUDIT_REFRESH_MS,
  });
  // A read that failed while the connection went away is read again once it is back, not 30 s later.
  const { isError, refetch } = query;
  useEffect(() => {
    if (connected && isError) void refetch();
  }, [connected, isError, refetch]);
  return query;
}

export function useProcessDetail(targetId: string | undefined, pid: number | null): UseQueryResult<ProcessDetail> {
  return useQuery({
    queryKey: queryKeys.process(targetId ?? '', pid ?? 0),
    queryFn: () =>
      fetchChecked(`/api/targets/${encodeURIComponent(targetId ?? '')}/processes/${pid ?? 0}`, processDetailSchema),
    enabled: targetId !== undefined && pid !== null,
    refetchInterval: PROCESS_REFRESH_MS,
    retry: false,
  });
}
