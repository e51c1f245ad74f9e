import type { FastifyInstance } from 'fastify';
import { byAttention, type OverviewTracker } from '../fleet/overviewTracker.ts';
import type { RemoteTargets } from '../live/remoteTargets.ts';

/**
 * GET /api/overview: one row per live target, most in need of attention first (fleet.ts). With
 * `remote` (--adapter), the rows of the targets other replicas sample too, as their owners answer
 * them: a team's overview is the same whichever replica nginx sends the page to.
 */
export function registerOverviewRoute(
  app: FastifyInstance,
  tracker: OverviewTracker,
  remote?: RemoteTargets,
  /** --replica-name: each row of a target sampled here names this replica, as /api/targets does. */
  replicaName?: string,
): void {
  app.get('/api/overview', async () => {
    const local = tracker.overview();
    if (remote === undefined) return local;
    const here = local.rows.map((row) =>
      replicaName === undefined ? row : { ...row, target: { ...row.target, replica: replicaName } },
    );
    const sampledHere = new Set(here.map((row) => row.target.id));
    const elsewhere = (await remote.overviewRows()).filter((row) => !sampledHere.has(row.target.id));
    return { ...local, rows: byAttention([...here, ...elsewhere]) };
  });
}
