import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { auditReportSchema, processDetailSchema, type AuditReport, type ProcessDetail } from '@aioscope/spec';
import { queryKeys } from './queryKeys.ts';
import { fetchChecked } from './targets.ts';

/** Settings change rarely; the audit is re-read on this period and on demand. */
const AUDIT_REFRESH_MS = 30_000;
/** Per-backend counters only move when the backend's statements end. */
const PROCESS_REFRESH_MS = 3_000;

export function useAudit(targetId: string | undefined): UseQueryResult<AuditReport> {
  return useQuery({
    queryKey: queryKeys.audit(targetId ?? ''),
    queryFn: () => fetchChecked(`/api/targets/${encodeURIComponent(targetId ?? '')}/audit`, auditReportSchema),
    enabled: targetId !== undefined,
    refetchInterval: AUDIT_REFRESH_MS,
  });
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
