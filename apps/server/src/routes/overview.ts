import type { FastifyInstance } from 'fastify';
import { byAttention, type OverviewTracker } from '../fleet/overviewTracker.ts';
import type { RemoteTargets } from '../live/remoteTargets.ts';

/**
 * GET /api/overview: one row per live target, most in need of attention first (fleet.ts). With
 * `remote` (--adapter), the rows of the targets other replicas sample too, as their owners answer
 * them: a team's overview is the same whichever replica nginx sends the page to.
 */
export function registerOverviewRoute(app: FastifyInstance, tracker: OverviewTracker, remote?: RemoteTargets): void {
  app.get('/api/overview', async () => {
    const local = tracker.overview();
    if (remote === undefined) return local;
    const sampledHere = new Set(local.rows.map((row) => row.target.id));
    const elsewhere = (await remote.overviewRows()).filter((row) => !sampledHere.has(row.target.id));
    return { ...local, rows: byAttention([...local.rows, ...elsewhere]) };
  });
}
