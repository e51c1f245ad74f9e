import type { ReactNode } from 'react';
import { describeLabActivity } from '@aioscope/core';
import { useLabInfo } from '../api/lab.ts';

/**
 * Said at the top of the page while a scan-lab experiment holds the lab: it may have restarted the
 * embedded server with other settings, which the header then shows, and its scans fill the charts.
 */
export function LabActivityBanner(): ReactNode {
  const active = useLabInfo().data?.active ?? null;
  if (active === null) return null;
  return (
    <div className="banner" role="status" data-testid="lab-activity-banner">
      <p>{describeLabActivity(active)}</p>
    </div>
  );
}
